/**
 * Skills (SEP-2640) for the referee's `sep-2640-skills-*` scenarios: a flat skill with nested
 * folders and a skill under an organizational prefix, each with a subdirectory so that
 * `resources/directory/read` has a directory child to list.
 */
import type { SkillsExtension } from '../../src/extensions/skills/index.js';

const PDF_SKILL = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  version: "2.1.0"
---

# PDF processing

Read [the form guide](references/FORMS.md) before filling a form; pick a template from \`templates/\`.
`;

const REFUNDS_SKILL = `---
name: refunds
description: Process customer refund requests per company policy
---

# Refunds

Answer with the wording of [the email example](examples/email.md).
`;

export function registerSkills(library: SkillsExtension): void {
  library.skill('pdf-processing', {
    files: {
      'SKILL.md': PDF_SKILL,
      'references/FORMS.md': '# Forms\n\nField names are case-sensitive.\n',
      'scripts/extract.py': 'import sys\n\nprint(open(sys.argv[1], "rb").read()[:4])\n',
      'templates/invoice.md': '# Invoice\n\nAmount: {{amount}}\n',
      'templates/purchase-order.md': '# Purchase order\n\nItems: {{items}}\n',
      'templates/regional/eu-invoice.md': '# EU invoice\n\nVAT: {{vat}}\n',
    },
  });
  library.skill('acme/billing/refunds', {
    files: {
      'SKILL.md': REFUNDS_SKILL,
      'examples/email.md': 'Dear customer, your refund of {{amount}} is on its way.\n',
    },
  });
}
