/**
 * The referee's SEP-2640 client scenarios, as a host would act: list the skills (reading no
 * file), load one (SKILL.md read and verified only then), and only if it verifies read the
 * supporting files its instructions point to. The verify-* scenarios tamper with SKILL.md, so
 * loading must fail with a SkillVerificationError and nothing further is read.
 */
import { SkillVerificationError } from '../../src/errors/index.js';
import type { Client } from '../../src/client/index.js';

type Step = (client: Client) => Promise<void>;

const listOnly: Step = async (c) => {
  const skills = await c.listSkills();
  console.error(`listed ${skills.length} skill(s): ${skills.map((s) => s.frontmatter.name).join(', ')}`);
};

const loadFirst: Step = async (c) => {
  const [entry] = await c.listSkills();
  if (entry === undefined) return;
  try {
    await c.loadSkill(entry);
  } catch (e) {
    if (!(e instanceof SkillVerificationError)) throw e;
    console.error(`refused ${entry.uri}: ${e.failure}: ${e.message}`);
    return;
  }
  const root = `${entry.uri.slice(0, entry.uri.lastIndexOf('/'))}/`;
  for (const r of entry.resources === 'dynamic' ? [] : entry.resources) {
    if (r.uri !== entry.uri) await c.readSkillFile(entry, r.uri.slice(root.length));
  }
};

export const skillScenarios: Record<string, Step> = {
  'sep-2640-client-no-prefetch': listOnly,
  'sep-2640-client-verify-digest': loadFirst,
  'sep-2640-client-verify-size': loadFirst,
  'sep-2640-client-verify-frontmatter': loadFirst,
};
