/**
 * The Skills extension on the server (SEP-2640): registration checks, `skills/list`,
 * `skills/get`, `resources/directory/read`, skill files as resources, digests and sizes,
 * pagination and the -32602 cases; over an in-memory pair with this project's client.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JanusError, McpError } from '../../src/errors/index.js';
import { MODERN } from '../support/common.js';
import { until } from '../support/wait.js';
import { wireValidator } from '../support/wire-schema.js';
import { PDF_FILES, PDF_MD, digestOf, pair, sizeOf, skillMd, skillsServer } from './skills-support.js';

const SKILLS = 'io.modelcontextprotocol/skills';

async function rejectsWith(p: Promise<unknown>, code: number, message?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof McpError, String(e));
    assert.equal(e.code, code);
    if (message) assert.match(e.message, message);
    return true;
  });
}

function refused(register: () => unknown, message: RegExp) {
  assert.throws(register, (e: unknown) => {
    assert.ok(e instanceof JanusError, String(e));
    assert.equal(e.code, 'REGISTRATION');
    assert.match(e.message, message);
    return true;
  });
}

test('registration refuses skills that break SEP-2640 rules, with a message naming the rule', () => {
  const { library } = skillsServer();
  const one =
    (files: Record<string, string | Uint8Array>, path = 'demo') =>
    () =>
      library.skill(path, { files });
  refused(one({ 'README.md': 'x' }), /no SKILL\.md at its root/);
  refused(one({ 'SKILL.md': '# no frontmatter\n' }), /does not begin with a --- delimited YAML frontmatter/);
  refused(one({ 'SKILL.md': '---\nname: demo\n---\n' }), /no "description"/);
  refused(one({ 'SKILL.md': '---\ndescription: d\n---\n' }), /no "name"/);
  refused(one({ 'SKILL.md': '---\nname: [demo\ndescription: d\n---\n' }), /not valid YAML/);
  refused(one({ 'SKILL.md': '---\n- a\n- b\n---\n' }), /not a YAML mapping/);
  refused(one({ 'SKILL.md': '---\nname: demo\ndescription: d\nlimit: .inf\n---\n' }), /cannot be sent as JSON/);
  refused(one({ 'SKILL.md': skillMd('other') }), /frontmatter name "other" differs from its final path segment "demo"/);
  refused(one({ 'SKILL.md': skillMd('Demo') }, 'Demo'), /not a valid skill name/);
  refused(one({ 'SKILL.md': skillMd('a--b') }, 'a--b'), /not a valid skill name/);
  refused(one({ 'SKILL.md': skillMd('-ab') }, '-ab'), /not a valid skill name/);
  refused(one({ 'SKILL.md': skillMd('a'.repeat(65)) }, 'a'.repeat(65)), /not a valid skill name/);
  refused(one({ 'SKILL.md': skillMd('demo') }, 'acme/../demo'), /path segment "\.\." is not a plain URI segment/);
  refused(one({ 'SKILL.md': skillMd('demo') }, 'acme//demo'), /path segment "" is not a plain URI segment/);
  refused(one({ 'SKILL.md': skillMd('demo'), '../escape.md': 'x' }), /file path "\.\.\/escape\.md" must be relative/);
  refused(one({ 'SKILL.md': skillMd('demo'), 'a\\b.md': 'x' }), /must be relative/);
  refused(() => library.skill('demo', { files: { 'SKILL.md': skillMd('demo'), 'n.md': 42 as never } }), /must be a string or a Uint8Array/);
  // SEP-2640 §Limits: 512 files, 16 MiB per skill.
  const many: Record<string, string> = { 'SKILL.md': skillMd('demo') };
  for (let i = 0; i < 512; i++) many[`f/${i}.md`] = 'x';
  refused(one(many), /513 files; SEP-2640 §Limits allows at most 512/);
  refused(one({ 'SKILL.md': skillMd('demo'), 'big.bin': new Uint8Array(16 * 1024 * 1024) }), /allows at most 16777216/);
  // Exactly at the limits is served.
  const atLimit: Record<string, string> = { 'SKILL.md': skillMd('demo') };
  for (let i = 0; i < 511; i++) atLimit[`f/${i}.md`] = 'x';
  library.skill('demo', { files: atLimit });
  refused(() => library.skill('demo', { files: atLimit }), /already registered/);
});

test('[2026-07-28] skills/list: entries with verbatim frontmatter, sha256 digests and byte sizes of every file, and the cache hint', async () => {
  const { server, library } = skillsServer({ cache: { ttlMs: 5000, scope: 'public' } });
  library.skill('pdf-processing', { files: PDF_FILES });
  library.skill('acme/billing/refunds', { files: { 'SKILL.md': skillMd('refunds'), 'examples/email.md': 'Dear customer\r\n' } });
  const { client, wire, close } = await pair(server, MODERN);
  try {
    const result = await client.request('skills/list');
    assert.equal(result.resultType, 'complete');
    assert.equal(result.ttlMs, 5000);
    assert.equal(result.cacheScope, 'public');
    assert.equal(result.nextCursor, undefined);
    const skills = result.skills as any[];
    assert.deepEqual(
      skills.map((s) => s.uri),
      ['skill://acme/billing/refunds/SKILL.md', 'skill://pdf-processing/SKILL.md'],
    );
    const pdf = skills[1];
    assert.deepEqual(pdf.frontmatter, {
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      license: 'Apache-2.0',
      metadata: { version: '2.1.0' },
    });
    const expected = Object.entries(PDF_FILES)
      .map(([path, content]) => ({ uri: `skill://pdf-processing/${path}`, digest: digestOf(content), size: sizeOf(content) }))
      .sort((a, b) => (a.uri.endsWith('/SKILL.md') ? -1 : b.uri.endsWith('/SKILL.md') ? 1 : a.uri < b.uri ? -1 : 1));
    assert.deepEqual(pdf.resources, expected);
    assert.equal(skills[0].resources[1].size, 15);
    // The same entry from skills/get, with the cache hint and no cursor.
    const got = await client.request('skills/get', { uri: 'skill://pdf-processing/SKILL.md' });
    assert.deepEqual(got.skill, pdf);
    assert.equal(got.ttlMs, 5000);
    assert.equal(got.cacheScope, 'public');
    assert.equal(got.nextCursor, undefined);
    // The discover result advertises the extension inline, with directoryRead; valid per the schema.
    const discover = await client.discover();
    assert.deepEqual((discover.capabilities as any).extensions[SKILLS], { directoryRead: true });
    const validator = wireValidator();
    for (const msg of wire.got()) {
      const req = wire.sent().find((m) => m.id === msg.id);
      if (req && ['server/discover', 'resources/list', 'resources/read'].includes(req.method)) {
        validator.assertServerMessage(MODERN, msg, { requestMethod: req.method });
      }
    }
  } finally {
    await close();
  }
});

test('[2026-07-28] skill files are resources: SKILL.md as text/markdown named from its frontmatter, others by name, bytes exact', async () => {
  const { server, library } = skillsServer();
  library.skill('pdf-processing', { files: PDF_FILES });
  const { client, wire, close } = await pair(server, MODERN);
  try {
    const { resources } = await client.listResources();
    const byUri = new Map(resources.map((r) => [r.uri, r]));
    assert.deepEqual(byUri.get('skill://pdf-processing/SKILL.md'), {
      uri: 'skill://pdf-processing/SKILL.md',
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      mimeType: 'text/markdown',
      size: sizeOf(PDF_MD),
    });
    assert.deepEqual(byUri.get('skill://pdf-processing/assets/logo.png'), {
      uri: 'skill://pdf-processing/assets/logo.png',
      name: 'logo.png',
      mimeType: 'image/png',
      size: 10,
    });
    assert.equal(resources.length, Object.keys(PDF_FILES).length);
    const md = await client.readResource('skill://pdf-processing/SKILL.md');
    assert.deepEqual(md.contents, [{ uri: 'skill://pdf-processing/SKILL.md', mimeType: 'text/markdown', text: PDF_MD }]);
    const png = await client.readResource('skill://pdf-processing/assets/logo.png');
    const blob = (png.contents[0] as { blob: string }).blob;
    assert.deepEqual(new Uint8Array(Buffer.from(blob, 'base64')), PDF_FILES['assets/logo.png']);
    const validator = wireValidator();
    for (const msg of wire.got()) {
      const req = wire.sent().find((m) => m.id === msg.id);
      if (req) validator.assertServerMessage(MODERN, msg, { requestMethod: req.method });
    }
  } finally {
    await close();
  }
});

test('[2026-07-28] resources/directory/read: direct children, subdirectories as inode/directory without a trailing slash, prefix levels too', async () => {
  const { server, library } = skillsServer();
  library.skill('pdf-processing', { files: PDF_FILES });
  library.skill('acme/billing/refunds', { files: { 'SKILL.md': skillMd('refunds') } });
  const { client, close } = await pair(server, MODERN);
  try {
    const root = await client.request('resources/directory/read', { uri: 'skill://pdf-processing' });
    assert.equal(root.resultType, 'complete');
    const summary = (root.resources as any[]).map((r) => `${r.uri} ${r.name} ${r.mimeType}`);
    assert.deepEqual(summary, [
      'skill://pdf-processing/SKILL.md pdf-processing text/markdown',
      'skill://pdf-processing/assets assets inode/directory',
      'skill://pdf-processing/references references inode/directory',
      'skill://pdf-processing/templates templates inode/directory',
    ]);
    const templates = await client.readDirectory('skill://pdf-processing/templates');
    assert.deepEqual(
      templates.map((r) => [r.uri, r.mimeType]),
      [
        ['skill://pdf-processing/templates/invoice.md', 'text/markdown'],
        ['skill://pdf-processing/templates/regional', 'inode/directory'],
      ],
    );
    const acme = await client.readDirectory('skill://acme');
    assert.deepEqual(acme, [{ uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' }]);
    // -32602 for a file, an unknown URI, a trailing slash and a missing uri.
    await rejectsWith(client.request('resources/directory/read', { uri: 'skill://pdf-processing/SKILL.md' }), -32602, /is a file/);
    await rejectsWith(client.request('resources/directory/read', { uri: 'skill://nothing-here' }), -32602, /not a directory/);
    await rejectsWith(client.request('resources/directory/read', { uri: 'skill://pdf-processing/' }), -32602);
    await rejectsWith(client.request('resources/directory/read', {}), -32602, /needs params\.uri/);
  } finally {
    await close();
  }
});

test('[2026-07-28] pagination: skills/list pages whole entries; directory reads page like resources/list; a bad cursor is -32602', async () => {
  const { server, library } = skillsServer({ pageSize: 2 });
  for (const name of ['alpha', 'bravo', 'charlie', 'delta', 'echo']) {
    library.skill(`team/${name}`, { files: { 'SKILL.md': skillMd(name), 'a.md': 'a', 'b.md': 'b' } });
  }
  const { client, close } = await pair(server, MODERN);
  try {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request('skills/list', cursor === undefined ? {} : { cursor });
      pages.push((page.skills as any[]).map((s) => `${s.frontmatter.name}:${s.resources.length}`));
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined);
    assert.deepEqual(pages, [['alpha:3', 'bravo:3'], ['charlie:3', 'delta:3'], ['echo:3']]);
    assert.equal((await client.listSkills()).length, 5);
    const first = await client.request('resources/directory/read', { uri: 'skill://team' });
    assert.equal((first.resources as any[]).length, 2);
    assert.equal(typeof first.nextCursor, 'string');
    assert.deepEqual(
      (await client.readDirectory('skill://team')).map((r) => r.name),
      ['alpha', 'bravo', 'charlie', 'delta', 'echo'],
    );
    await rejectsWith(client.request('skills/list', { cursor: 'not-a-cursor' }), -32602, /Invalid cursor/);
    await rejectsWith(client.request('resources/directory/read', { uri: 'skill://team', cursor: btoa('{"o":99}') }), -32602);
  } finally {
    await close();
  }
});

test('[2026-07-28] skills/get answers -32602 for an unknown URI, a file that is not a SKILL.md, and a missing uri', async () => {
  const { server, library } = skillsServer();
  library.skill('pdf-processing', { files: PDF_FILES });
  const { client, close } = await pair(server, MODERN);
  try {
    await rejectsWith(client.request('skills/get', { uri: 'skill://nope/SKILL.md' }), -32602, /Unknown skill/);
    await rejectsWith(client.request('skills/get', { uri: 'skill://pdf-processing/references/FORMS.md' }), -32602);
    await rejectsWith(client.request('skills/get', {}), -32602, /needs params\.uri/);
  } finally {
    await close();
  }
});

test('[2025-11-25] the extension is not advertised and its methods do not exist; the skill files are still plain resources', async () => {
  const { server, library } = skillsServer();
  library.skill('pdf-processing', { files: PDF_FILES });
  const { client, close } = await pair(server, '2025-11-25');
  try {
    assert.equal((client.serverCapabilities as any).extensions, undefined);
    await rejectsWith(client.request('skills/list'), -32601);
    await rejectsWith(client.request('resources/directory/read', { uri: 'skill://pdf-processing' }), -32601);
    const md = await client.readResource('skill://pdf-processing/SKILL.md');
    assert.equal((md.contents[0] as { text: string }).text, PDF_MD);
  } finally {
    await close();
  }
});

test('update replaces the files (digests follow, resources come and go); an invalid update changes nothing; remove serves nothing', async () => {
  const { server, library } = skillsServer();
  const reg = library.skill('demo', { files: { 'SKILL.md': skillMd('demo'), 'old.md': 'old' } });
  assert.equal(reg.uri, 'skill://demo/SKILL.md');
  const { client, close } = await pair(server, MODERN);
  try {
    reg.update({ files: { 'SKILL.md': skillMd('demo', 'Changed'), 'new.md': 'new' } });
    const entry = await client.getSkill('skill://demo/SKILL.md');
    assert.equal(entry.frontmatter.description, 'Changed');
    assert.deepEqual(entry.resources, [
      { uri: 'skill://demo/SKILL.md', digest: digestOf(skillMd('demo', 'Changed')), size: sizeOf(skillMd('demo', 'Changed')) },
      { uri: 'skill://demo/new.md', digest: digestOf('new'), size: 3 },
    ]);
    const uris = (await client.listResources()).resources.map((r) => r.uri).sort();
    assert.deepEqual(uris, ['skill://demo/SKILL.md', 'skill://demo/new.md']);
    assert.equal((await client.listResources()).resources.find((r) => r.uri.endsWith('SKILL.md'))?.description, 'Changed');
    assert.throws(() => reg.update({ files: { 'SKILL.md': skillMd('other') } }), /differs from its final path segment/);
    assert.equal((await client.getSkill('skill://demo/SKILL.md')).frontmatter.description, 'Changed');
    reg.remove();
    await rejectsWith(client.request('skills/get', { uri: 'skill://demo/SKILL.md' }), -32602);
    assert.deepEqual((await client.listResources()).resources, []);
    assert.deepEqual(await client.listSkills(), []);
    reg.remove();
  } finally {
    await close();
  }
});

test('nested skills share files: the inner SKILL.md is described by its own frontmatter while served; conflicting bytes are refused', async () => {
  const { server, library } = skillsServer();
  const outer = library.skill('outer', { files: { 'SKILL.md': skillMd('outer'), 'inner/SKILL.md': skillMd('inner'), 'inner/x.md': 'x' } });
  refused(
    () => library.skill('outer/inner', { files: { 'SKILL.md': skillMd('inner', 'Other') } }),
    /served by skill "outer" with other content/,
  );
  const inner = library.skill('outer/inner', { files: { 'SKILL.md': skillMd('inner'), 'x.md': 'x' } });
  const { client, close } = await pair(server, MODERN);
  try {
    const described = async () => (await client.listResources()).resources.find((r) => r.uri === 'skill://outer/inner/SKILL.md');
    assert.equal((await described())?.description, 'The inner skill');
    const entries = await client.listSkills();
    assert.deepEqual(
      entries.map((e) => e.uri),
      ['skill://outer/SKILL.md', 'skill://outer/inner/SKILL.md'],
    );
    // Completeness: the enclosing skill lists the nested skill's files too.
    assert.equal((entries[0]!.resources as unknown[]).length, 3);
    inner.remove();
    const plain = await described();
    assert.equal(plain?.name, 'SKILL.md');
    assert.equal(plain?.description, undefined);
    outer.remove();
    assert.deepEqual((await client.listResources()).resources, []);
  } finally {
    await close();
  }
});

test('a skill URI taken by a plain resource is refused, and nothing of the skill stays registered', async () => {
  const { server, library } = skillsServer();
  server.resource('skill://demo/b.md', { name: 'b' }, 'mine');
  assert.throws(() => library.skill('demo', { files: { 'SKILL.md': skillMd('demo'), 'a.md': 'a', 'b.md': 'b' } }), /already registered/);
  const { client, close } = await pair(server, MODERN);
  try {
    assert.deepEqual(
      (await client.listResources()).resources.map((r) => r.uri),
      ['skill://demo/b.md'],
    );
    assert.deepEqual(await client.listSkills(), []);
  } finally {
    await close();
  }
});

test('[2026-07-28] updating a skill tells subscribers of each file whose bytes changed (resources/updated), not of unchanged ones', async () => {
  const { server, library } = skillsServer();
  const reg = library.skill('demo', { files: { 'SKILL.md': skillMd('demo'), 'a.md': 'a', 'b.md': 'b' } });
  const { client, wire, close } = await pair(server, MODERN);
  try {
    const stream = client.listen({ resourceSubscriptions: ['skill://demo/a.md', 'skill://demo/b.md'] });
    await until(() => wire.got('notifications/subscriptions/acknowledged').length === 1, 'the listen acknowledgement');
    reg.update({ files: { 'SKILL.md': skillMd('demo'), 'a.md': 'a', 'b.md': 'B' } });
    const updated = (await stream.next()).value;
    assert.deepEqual([updated.method, updated.params?.uri], ['notifications/resources/updated', 'skill://demo/b.md']);
    assert.equal(wire.got('notifications/resources/updated').length, 1);
    await stream.return!();
  } finally {
    await close();
  }
});
