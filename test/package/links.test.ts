/**
 * The README and docs/ link to each other and to the repository: every relative link names a
 * file that exists, and every `#fragment` a heading of its target (GitHub's slugs), so a
 * reader never lands on a 404 or the top of the wrong page.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { documents, root } from './support.js';

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));
}

test('every relative link of the README and docs/ reaches an existing file and heading', () => {
  const broken: string[] = [];
  for (const doc of documents()) {
    const text = readFileSync(join(root, doc), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1]!;
      if (/^[a-z]+:/i.test(href)) continue; // https:, mailto:
      const [path, fragment] = href.split('#') as [string, string | undefined];
      const target = path === '' ? join(root, doc) : normalize(join(root, dirname(doc), path));
      if (!existsSync(target)) {
        broken.push(`${doc}: ${href} (no such file)`);
        continue;
      }
      if (fragment !== undefined && target.endsWith('.md') && !anchorsOf(target).has(fragment))
        broken.push(`${doc}: ${href} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});
