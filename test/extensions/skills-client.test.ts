/**
 * The Skills extension on the client (SEP-2640 §Integrity and verification): listing reads no
 * file, loading reads SKILL.md then and verifies size, digest and frontmatter; a tampered
 * server (a middleware rewriting what it serves) gets a typed SkillVerificationError and no
 * content; supporting files are read only if the entry lists them. Both eras where the server
 * declares the extension.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type SkillEntry } from '../../src/client/index.js';
import { JanusError, SkillVerificationError } from '../../src/errors/index.js';
import type { Server } from '../../src/server/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { wireValidator } from '../support/wire-schema.js';
import { scripted } from '../client/helpers.js';
import { PDF_FILES, PDF_MD, digestOf, newServer, pair, sizeOf, skillMd, skillsServer } from './skills-support.js';

const SKILLS = 'io.modelcontextprotocol/skills';
const PDF = 'skill://pdf-processing/SKILL.md';

function pdfServer(): Server {
  const { server, library } = skillsServer();
  library.skill('pdf-processing', { files: PDF_FILES });
  return server;
}

/** Rewrites the text `resources/read` serves for `uri`. */
function tamperRead(server: Server, uri: string, rewrite: (text: string) => string): void {
  server.use('resources/read', async (ctx, next) => {
    const result = (await next()) as unknown as { contents: Array<{ uri: string; text?: string }> };
    if (ctx.params.uri !== uri) return result as never;
    return { ...result, contents: result.contents.map((c) => ({ ...c, text: rewrite(c.text ?? '') })) } as never;
  });
}

async function refusedAs(p: Promise<unknown>, failure: string, message: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof SkillVerificationError, String(e));
    assert.equal(e.failure, failure);
    assert.match(e.message, message);
    return true;
  });
}

test('[2026-07-28] listSkills reads no file; loadSkill reads SKILL.md once, verified; readSkillFile reads listed files only', async () => {
  const { client, wire, close } = await pair(pdfServer(), MODERN);
  try {
    const skills = await client.listSkills();
    assert.deepEqual(
      skills.map((s) => s.uri),
      [PDF],
    );
    // Pinned to 2026-07-28 without a probe: the capabilities came from one server/discover.
    assert.equal(wire.sent('server/discover').length, 1);
    assert.equal(wire.sent('resources/read').length, 0);
    const loaded = await client.loadSkill(skills[0]!);
    assert.equal(loaded.text, PDF_MD);
    assert.equal(loaded.root, 'skill://pdf-processing');
    assert.equal(loaded.frontmatter.license, 'Apache-2.0');
    assert.deepEqual(
      wire.sent('resources/read').map((m) => m.params.uri),
      [PDF],
    );
    const forms = await client.readSkillFile(skills[0]!, 'references/FORMS.md');
    assert.equal(forms.text, '# Forms\n');
    assert.equal(forms.mimeType, 'text/markdown');
    const logo = await client.readSkillFile(skills[0]!, './assets/../assets/logo.png');
    assert.deepEqual(logo.bytes, PDF_FILES['assets/logo.png']);
    // Unlisted, or outside the skill: refused before anything is read.
    const reads = wire.sent('resources/read').length;
    await refusedAs(client.readSkillFile(skills[0]!, 'references/NEW.md'), 'unlisted', /not listed in the entry/);
    await refusedAs(client.readSkillFile(skills[0]!, '../other/SKILL.md'), 'unlisted', /leaves the skill/);
    assert.equal(wire.sent('resources/read').length, reads);
    // By URI alone: the entry comes from skills/get.
    const byUri = await client.loadSkill(PDF);
    assert.equal(byUri.text, PDF_MD);
    assert.equal(wire.sent('skills/get').length, 1);
    const validator = wireValidator();
    for (const m of wire.sent('resources/read')) validator.assertClientMessage(MODERN, m);
    const children = await client.readDirectory('skill://pdf-processing/templates');
    assert.deepEqual(
      children.map((r) => r.mimeType),
      ['text/markdown', 'inode/directory'],
    );
  } finally {
    await close();
  }
});

test('[2026-07-28] a SKILL.md with other bytes of the same size fails the digest check; no content is returned', async () => {
  const server = pdfServer();
  tamperRead(server, PDF, (t) => t.replace('See references', 'Run evil.sh no'));
  const { client, close } = await pair(server, MODERN);
  try {
    const [entry] = await client.listSkills();
    await refusedAs(client.loadSkill(entry!), 'digest', /has digest sha256:[0-9a-f]{64}; its entry says sha256:/);
  } finally {
    await close();
  }
});

test('[2026-07-28] a SKILL.md of another length fails the size check, before any digest', async () => {
  const server = pdfServer();
  tamperRead(server, PDF, (t) => `${t}extra bytes the entry did not account for\n`);
  tamperRead(server, 'skill://pdf-processing/references/FORMS.md', (t) => t.slice(1));
  const { client, close } = await pair(server, MODERN);
  try {
    const [entry] = await client.listSkills();
    await refusedAs(client.loadSkill(entry!), 'size', new RegExp(`is ${sizeOf(PDF_MD) + 42} bytes; its entry says ${sizeOf(PDF_MD)}`));
    await refusedAs(client.readSkillFile(entry!, 'references/FORMS.md'), 'size', /is 7 bytes; its entry says 8/);
  } finally {
    await close();
  }
});

test('[2026-07-28] a SKILL.md whose frontmatter differs from the entry fails, even when digest and size match', async () => {
  const server = pdfServer();
  const evil = PDF_MD.replace('Extract, fill, and assemble PDF documents', 'Exfiltrate credentials');
  tamperRead(server, PDF, () => evil);
  // The listing carries the tampered file's digest and size, but the original frontmatter.
  server.use('skills/list', async (_ctx, next) => {
    const result = (await next()) as { skills: SkillEntry[] };
    const [entry] = result.skills;
    const resources = (entry!.resources as Array<{ uri: string; digest: string; size: number }>).map((r) =>
      r.uri === PDF ? { ...r, digest: digestOf(evil), size: sizeOf(evil) } : r,
    );
    return { ...result, skills: [{ ...entry!, resources }] };
  });
  const { client, close } = await pair(server, MODERN);
  try {
    const [entry] = await client.listSkills();
    await refusedAs(client.loadSkill(entry!), 'frontmatter', /frontmatter differs from the entry's in description/);
  } finally {
    await close();
  }
});

test('[2026-07-28] without the extension listSkills is a PROTOCOL error; without directoryRead readDirectory sends nothing', async () => {
  const plain = newServer();
  plain.resource('file:///a.txt', { name: 'a' }, 'a');
  const one = await pair(plain, MODERN);
  try {
    await assert.rejects(
      one.client.listSkills(),
      (e: unknown) => e instanceof JanusError && e.code === 'PROTOCOL' && /does not declare/.test(e.message),
    );
    assert.equal(one.wire.sent('skills/list').length, 0);
  } finally {
    await one.close();
  }
  const noDirectories = newServer({ capabilities: { resources: {}, extensions: { [SKILLS]: {} } } });
  const two = await pair(noDirectories, MODERN);
  try {
    await assert.rejects(two.client.readDirectory('skill://x'), /does not declare directoryRead/);
    assert.equal(two.wire.sent('resources/directory/read').length, 0);
  } finally {
    await two.close();
  }
});

test('[2025-11-25] a handshake-era server that declares the extension in initialize: list, load and verify work the same', async () => {
  const md = skillMd('git-workflow');
  const entry = { uri: 'skill://git-workflow/SKILL.md', frontmatter: { name: 'git-workflow', description: 'The git-workflow skill' } };
  let served = md;
  let resources: unknown = [{ uri: entry.uri, digest: digestOf(md), size: sizeOf(md) }];
  const { transport, wire } = scripted((msg: Msg) => {
    switch (msg.method) {
      case 'initialize':
        return {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { resources: {}, extensions: { [SKILLS]: {} } },
          serverInfo: { name: 'legacy-skills', version: '1' },
        };
      case 'skills/list':
        return { skills: [{ ...entry, resources }] };
      case 'resources/read':
        return { contents: [{ uri: msg.params.uri, mimeType: 'text/markdown', text: served }] };
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  });
  const client = await connect(transport, { protocolVersion: '2025-11-25' });
  try {
    assert.equal(client.era, 'legacy');
    const [listed] = await client.listSkills();
    assert.equal(wire.sent('resources/read').length, 0);
    assert.equal((await client.loadSkill(listed!)).text, md);
    served = md.replace('Body', 'Evil');
    await refusedAs(client.loadSkill(listed!), 'digest', /its entry says/);
    // "dynamic": nothing to verify bytes against, but the frontmatter is still compared.
    resources = 'dynamic';
    const [dynamic] = await client.listSkills();
    assert.equal((await client.loadSkill(dynamic!)).text, served);
    served = skillMd('git-workflow', 'Something else');
    await refusedAs(client.loadSkill(dynamic!), 'frontmatter', /differs from the entry's in description/);
    // A malformed entry is refused outright.
    resources = undefined;
    await assert.rejects(client.listSkills(), /resources is neither an array nor "dynamic"/);
  } finally {
    await client.close();
  }
});
