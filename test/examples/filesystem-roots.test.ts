/**
 * examples/filesystem-roots as a user gets it: installed, built, its README's commands run, then
 * the server driven over stdio by the Janus client (roots through `onRoots`, in both eras) and
 * by the official SDK v1 client (roots declared as a capability, `roots/list` answered, a
 * change announced). Files are served inside the roots only: `..` and symlinks that lead
 * outside are refused, and a 2025 session's roots are refreshed on `roots/list_changed`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client as SdkV1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type Client, connect } from '../../src/client/index.js';
import { installExample, type Project, readmeCommands, typeCheckReadme, run } from './support.js';

const NAME = 'filesystem-roots';
let project: Project;
const work = realpathSync(mkdtempSync(join(tmpdir(), 'janus-mcp-roots-test-')));
const rootA = join(work, 'a');
const rootB = join(work, 'b');
const outside = join(work, 'outside');

before(async () => {
  mkdirSync(join(rootA, 'sub'), { recursive: true });
  mkdirSync(rootB);
  mkdirSync(outside);
  writeFileSync(join(rootA, 'hello.txt'), 'hello from a\n');
  writeFileSync(join(rootA, 'sub', 'deep.md'), '# deep\n');
  writeFileSync(join(rootA, 'binary.bin'), Buffer.from([1, 0, 2]));
  writeFileSync(join(rootB, 'b.txt'), 'from b\n');
  writeFileSync(join(outside, 'secret.txt'), 'the secret\n');
  symlinkSync(outside, join(rootA, 'link-out'), 'dir'); // a folder link that leaves the root
  symlinkSync(join(outside, 'secret.txt'), join(rootA, 'file-out')); // a file link that leaves it
  symlinkSync(join(rootA, 'sub'), join(rootA, 'link-in'), 'dir'); // one that stays inside
  project = await installExample(NAME);
});
after(() => {
  project?.remove();
  rmSync(work, { recursive: true, force: true });
});

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean; structuredContent?: unknown };
const text = (r: Result) => r.content.map((c) => c.text ?? '').join('');
const root = (path: string) => ({ uri: pathToFileURL(path).href, name: path.split('/').pop()! });

test("the README's commands work as written", async () => {
  const commands = readmeCommands(NAME);
  assert.deepEqual(commands.slice(0, 2), ['npm install', 'npm run build'], 'installExample ran these');
  const tries = commands.slice(2);
  assert.equal(tries.length, 4);
  const src = realpathSync(join(project.dir, 'src'));

  const listed = JSON.parse((await run('sh', ['-c', tries[0]!], { cwd: project.dir })).stdout) as { entries: Array<{ name: string }> };
  assert.deepEqual(
    listed.entries.map((e) => e.name),
    ['client.ts', 'main.ts', 'paths.ts', 'roots.ts', 'server.ts'],
  );
  assert.equal((await run('sh', ['-c', tries[1]!], { cwd: project.dir })).stdout, `${readFileSync(join(src, 'main.ts'), 'utf8')}\n`);
  assert.deepEqual(JSON.parse((await run('sh', ['-c', tries[2]!], { cwd: project.dir })).stdout), {
    matches: [join(src, 'paths.ts')],
    truncated: false,
  });
  await assert.rejects(run('sh', ['-c', tries[3]!], { cwd: project.dir }), (e: Error) => {
    assert.match(e.message, /failed \(Command failed/);
    assert.ok(
      e.message.includes(
        `../package.json is outside the folders this client shared (${src}). Ask the user to add a root that contains it.`,
      ),
      e.message,
    );
    return true;
  });
});

/** What every client must see with rootA as its only root. */
async function checkContainment(call: (tool: string, args: Record<string, unknown>) => Promise<Result>): Promise<void> {
  assert.deepEqual((await call('list_roots', {})).structuredContent, { roots: [{ path: rootA, name: 'a' }] });
  for (const path of ['hello.txt', join(rootA, 'hello.txt'), pathToFileURL(join(rootA, 'hello.txt')).href, 'sub/../hello.txt']) {
    const r = await call('read_file', { path });
    assert.equal(r.isError, undefined, `${path}: ${text(r)}`);
    assert.equal(text(r), 'hello from a\n');
  }
  assert.equal(text(await call('read_file', { path: 'link-in/deep.md' })), '# deep\n', 'a symlink that stays inside is followed');

  for (const path of [
    '../outside/secret.txt',
    'sub/../../outside/secret.txt',
    join(outside, 'secret.txt'),
    pathToFileURL(join(outside, 'secret.txt')).href,
    'link-out/secret.txt',
    'file-out',
    '/etc/passwd',
  ]) {
    const r = await call('read_file', { path });
    assert.equal(r.isError, true, path);
    assert.equal(text(r), `${path} is outside the folders this client shared (${rootA}). Ask the user to add a root that contains it.`);
  }
  // Outside, a missing file is refused the same way: nothing tells what exists there.
  assert.match(text(await call('read_file', { path: '../outside/nothing.txt' })), /is outside the folders/);
  assert.equal(text(await call('read_file', { path: 'nothing.txt' })), 'nothing.txt does not exist.');
  assert.equal(text(await call('read_file', { path: 'binary.bin' })), 'binary.bin is not a text file.');

  const listed = await call('list_directory', { path: '.' });
  assert.deepEqual(listed.structuredContent, {
    path: rootA,
    entries: [
      { name: 'binary.bin', kind: 'file', size: 3 },
      { name: 'file-out', kind: 'symlink' },
      { name: 'hello.txt', kind: 'file', size: 13 },
      { name: 'link-in', kind: 'symlink' },
      { name: 'link-out', kind: 'symlink' },
      { name: 'sub', kind: 'directory' },
    ],
  });
  assert.equal((await call('list_directory', { path: 'link-out' })).isError, true);
  assert.equal((await call('list_directory', { path: '..' })).isError, true);

  // The search does not follow links: the secret behind link-out is never found.
  assert.deepEqual((await call('search_files', { query: 'secret' })).structuredContent, { matches: [], truncated: false });
  assert.deepEqual((await call('search_files', { query: 'DEEP' })).structuredContent, {
    matches: [join(rootA, 'sub', 'deep.md')],
    truncated: false,
  });
  assert.equal((await call('search_files', { query: 'secret', path: 'link-out' })).isError, true);
}

const ERAS = [
  { name: '2025-11-25 session', protocolVersion: '2025-11-25', era: 'legacy' },
  { name: '2026-07-28', protocolVersion: undefined, era: 'modern' },
] as const;

for (const { name, protocolVersion, era } of ERAS) {
  describe(`the Janus client, roots through onRoots (${name})`, () => {
    let client: Client;
    let roots = [root(rootA)];
    let asked = 0;
    before(async () => {
      client = await connect(
        { command: 'node', args: ['dist/main.js'], cwd: project.dir, stderr: 'ignore' },
        {
          ...(protocolVersion ? { protocolVersion } : {}),
          onRoots: async () => {
            asked++;
            return roots;
          },
        },
      );
      assert.equal(client.era, era);
    });
    after(() => client?.close());

    test('files inside the roots are served; `..` and symlinks that leave them are refused', async () => {
      await checkContainment((tool, args) => client.callTool(tool, args));
    });

    test(
      era === 'legacy'
        ? 'the session keeps its roots and asks again after roots/list_changed'
        : 'every call asks for the roots of the moment (input_required)',
      async () => {
        const before = asked;
        await client.callTool('list_roots', {});
        await client.callTool('list_roots', {});
        assert.equal(asked - before, era === 'legacy' ? 0 : 2);

        roots = [root(rootB)];
        if (era === 'legacy') {
          // Until the client says so, the session's roots are the ones it was given.
          assert.equal(text(await client.callTool('read_file', { path: 'hello.txt' })), 'hello from a\n');
          await client.rootsChanged();
        }
        assert.equal(text(await client.callTool('read_file', { path: 'b.txt' })), 'from b\n');
        const refused = await client.callTool('read_file', { path: join(rootA, 'hello.txt') });
        assert.equal(refused.isError, true);
        assert.match(text(refused), /is outside the folders this client shared/);
        if (era === 'legacy') assert.equal(asked - before, 1, 'asked once more, after the change');
      },
    );
  });
}

test('a client that shares no roots is told so', async () => {
  const client = await connect({ command: 'node', args: ['dist/main.js'], cwd: project.dir, stderr: 'ignore' });
  try {
    const r = await client.callTool('read_file', { path: '/etc/hostname' });
    assert.equal(r.isError, true);
    assert.match(text(r), /This client shares no roots/);
  } finally {
    await client.close();
  }
});

test('the official SDK v1 client declares roots, answers roots/list, and announces a change', async () => {
  let roots = [root(rootA)];
  const client = new SdkV1Client({ name: 'sdk-v1-host', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['dist/main.js'], cwd: project.dir, stderr: 'ignore' }));
  try {
    await checkContainment(async (name, args) => (await client.callTool({ name, arguments: args })) as Result);
    roots = [root(rootB)];
    await client.sendRootsListChanged();
    const read = (await client.callTool({ name: 'read_file', arguments: { path: 'b.txt' } })) as Result;
    assert.equal(text(read), 'from b\n');
  } finally {
    await client.close();
  }
});

test("the README's TypeScript compiles against the package", async () => {
  assert.deepEqual(await typeCheckReadme(project, NAME), []);
});
