/**
 * Skills served from disk: `library.skills(directory)` (the Skills extension's) finds every
 * directory holding a SKILL.md (nested ones included, each at its relative path),
 * `library.skill(path, directory)` serves one;
 * hidden entries are skipped; one bad skill refuses the whole directory.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { JanusError } from '../../src/errors/index.js';
import { readSkillDirectory } from '../../src/extensions/skills/index.js';
import { MODERN } from '../support/common.js';
import { digestOf, pair, skillMd, skillsServer } from './skills-support.js';

let root: string;

async function put(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'janus-skills-'));
  await put('good/git-workflow/SKILL.md', skillMd('git-workflow'));
  await put('good/git-workflow/.hidden', 'not served');
  await put('good/acme/billing/refunds/SKILL.md', skillMd('refunds'));
  await put('good/acme/billing/refunds/examples/email.md', 'Dear customer\n');
  await put('good/acme/billing/refunds/partial/SKILL.md', skillMd('partial'));
  await put('good/acme/README.md', 'not part of any skill');
  await put('good/bin/pdf-tools/SKILL.md', skillMd('pdf-tools'));
  await put('good/bin/pdf-tools/blob.bin', new Uint8Array([0, 1, 2, 255]));
  await put('bad/fine/SKILL.md', skillMd('fine'));
  await put('bad/wrong/SKILL.md', skillMd('not-wrong'));
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('library.skills(directory) serves every skill below it at its relative path, nested skills too, hidden files skipped', async () => {
  const { server, library } = skillsServer();
  const served = await library.skills(join(root, 'good'));
  assert.deepEqual(
    served.map((s) => s.uri),
    [
      'skill://acme/billing/refunds/SKILL.md',
      'skill://acme/billing/refunds/partial/SKILL.md',
      'skill://bin/pdf-tools/SKILL.md',
      'skill://git-workflow/SKILL.md',
    ],
  );
  const { client, close } = await pair(server, MODERN);
  try {
    const refunds = await client.getSkill('skill://acme/billing/refunds/SKILL.md');
    assert.deepEqual(
      (refunds.resources as Array<{ uri: string }>).map((r) => r.uri),
      [
        'skill://acme/billing/refunds/SKILL.md',
        'skill://acme/billing/refunds/examples/email.md',
        'skill://acme/billing/refunds/partial/SKILL.md',
      ],
    );
    const git = await client.getSkill('skill://git-workflow/SKILL.md');
    assert.equal((git.resources as unknown[]).length, 1);
    const bin = await client.getSkill('skill://bin/pdf-tools/SKILL.md');
    assert.deepEqual((bin.resources as Array<{ digest: string; size: number }>)[1], {
      uri: 'skill://bin/pdf-tools/blob.bin',
      digest: digestOf(new Uint8Array([0, 1, 2, 255])),
      size: 4,
    });
    const loaded = await client.readSkillFile(bin, 'blob.bin');
    assert.deepEqual([...loaded.bytes], [0, 1, 2, 255]);
  } finally {
    await close();
  }
});

test('library.skill(path, directory) serves one directory under a chosen path; readSkillDirectory gives its files', async () => {
  const { library } = skillsServer();
  const reg = await library.skill('team/refunds', join(root, 'good/acme/billing/refunds'));
  assert.equal(reg.uri, 'skill://team/refunds/SKILL.md');
  const files = await readSkillDirectory(join(root, 'good/acme/billing/refunds'));
  assert.deepEqual(Object.keys(files.files).sort(), ['SKILL.md', 'examples/email.md', 'partial/SKILL.md']);
  await assert.rejects(library.skill('team/other', join(root, 'good/acme/billing/refunds')), /differs from its final path segment/);
});

test('one bad skill refuses the whole directory: nothing of it is served', async () => {
  const { server, library } = skillsServer();
  await assert.rejects(library.skills(join(root, 'bad')), (e: unknown) => {
    assert.ok(e instanceof JanusError);
    assert.equal(e.code, 'REGISTRATION');
    assert.match(e.message, /skills under .*bad: skill "wrong": its SKILL\.md frontmatter name "not-wrong" differs/);
    return true;
  });
  const { client, close } = await pair(server, MODERN);
  try {
    assert.deepEqual(await client.listSkills(), []);
    assert.deepEqual((await client.listResources()).resources, []);
  } finally {
    await close();
  }
});
