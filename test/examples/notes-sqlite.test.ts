/**
 * examples/notes-sqlite as a user gets it: installed from its package.json (better-sqlite3's
 * binary from a loopback mirror, see below), built with its tsconfig, the README's commands run
 * as written, then the server driven by the Janus client in both eras: its tools change a real
 * SQLite file, notes are resources, the prompt embeds them, changes reach listeners, and the
 * database is migrated on start.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { type Client, connect } from '../../src/client/index.js';
import { McpError } from '../../src/errors/index.js';
import { until } from '../support/wait.js';
import { installExample, type Project, readmeCommands, typeCheckReadme, root, rootVersion, run } from './support.js';

const NAME = 'notes-sqlite';

/**
 * better-sqlite3's install script downloads the binary for this platform from its GitHub
 * releases (prebuild-install), and npm honours a mirror for it
 * (`npm_config_better_sqlite3_binary_host`). The tests reach nothing but loopback and npm, so
 * the mirror is here: it serves the binary of the same version that the repository's install
 * already holds, packed as a release asset is.
 */
async function binaryMirror(work: string): Promise<{ host: string; requests: string[]; close(): void; cached(): string }> {
  const version = rootVersion('better-sqlite3');
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run('tar', ['-czf', join(work, asset), '-C', join(root, 'node_modules', 'better-sqlite3'), 'build/Release/better_sqlite3.node']);
  const requests: string[] = [];
  const http: HttpServer = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url !== `/v${version}/${asset}`) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/gzip' });
    createReadStream(join(work, asset)).pipe(res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const host = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    host,
    requests,
    close: () => http.close(),
    // Where prebuild-install keeps what it downloaded (a hash of the URL), to leave npm's cache as it was.
    cached: () => {
      const url = `${host}/v${version}/${asset}`;
      const digest = createHash('sha512').update(url).digest('hex').slice(0, 6);
      return join(
        process.env.npm_config_cache ?? join(homedir(), '.npm'),
        '_prebuilds',
        `${digest}-${asset.replace(/[^a-zA-Z0-9.]+/g, '-')}`,
      );
    },
  };
}

let project: Project;
const work = mkdtempSync(join(tmpdir(), 'janus-mcp-notes-test-'));

before(async () => {
  const mirror = await binaryMirror(work);
  try {
    project = await installExample(NAME, { npm_config_better_sqlite3_binary_host: mirror.host });
    assert.ok(mirror.requests.length > 0, 'better-sqlite3 was installed through its install script, which fetched the binary');
  } finally {
    mirror.close();
    rmSync(mirror.cached(), { force: true });
  }
});
after(() => {
  project?.remove();
  rmSync(work, { recursive: true, force: true });
});

const text = (result: { content: Array<{ type: string; text?: string }> }): string => result.content.map((c) => c.text ?? '').join('');

test("the README's commands work as written and print what it shows", async () => {
  const commands = readmeCommands(NAME);
  assert.deepEqual(commands.slice(0, 2), ['npm install', 'npm run build'], 'installExample ran these');
  const readme = readFileSync(join(root, 'examples', NAME, 'README.md'), 'utf8');
  const shown = /```sh\nnpx janus-mcp call[\s\S]*?```\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(shown, 'the README shows the output of its janus-mcp commands');
  let printed = '';
  for (const command of commands.slice(2)) printed += (await run('sh', ['-c', command], { cwd: project.dir })).stdout;
  const lines = (s: string) => s.split('\n').map((l) => l.trimEnd());
  assert.deepEqual(lines(printed), lines(shown));
  // The file the commands named holds what they added, at the newest schema.
  const db = new Database(join(project.dir, 'notes.db'), { readonly: true });
  try {
    assert.equal(db.pragma('user_version', { simple: true }), 2);
    assert.deepEqual(db.prepare('SELECT id, title FROM notes').all(), [{ id: 1, title: 'Groceries' }]);
  } finally {
    db.close();
  }
});

const ERAS = [
  { name: '2025-11-25 session', protocolVersion: '2025-11-25', era: 'legacy' },
  { name: '2026-07-28', protocolVersion: undefined, era: 'modern' },
] as const;

for (const { name, protocolVersion, era } of ERAS) {
  describe(`the server, driven by the Janus client (${name})`, () => {
    let client: Client;
    let file: string;
    before(async () => {
      file = join(work, `${era}.db`);
      // One era names the database by argument, the other by environment.
      client = await connect(
        era === 'legacy'
          ? { command: 'node', args: ['dist/main.js', '--db', file], cwd: project.dir, stderr: 'ignore' }
          : { command: 'node', args: ['dist/main.js'], env: { NOTES_DB: file }, cwd: project.dir, stderr: 'ignore' },
        protocolVersion ? { protocolVersion } : {},
      );
      assert.equal(client.era, era);
    });
    after(() => client?.close());

    test('tools add, search, update and delete notes in the database', async () => {
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['add_note', 'search_notes', 'update_note', 'delete_note'],
      );
      const added = await client.callTool('add_note', { title: 'Trip to Lisbon', body: 'Pack the camera; book the tram tour.' });
      assert.deepEqual(added.structuredContent, { id: 1, uri: 'note://1' });
      await client.callTool('add_note', { title: 'Camera repair', body: 'The shutter sticks.' });

      const found = await client.callTool('search_notes', { query: 'camera' });
      assert.deepEqual((found.structuredContent as { notes: Array<{ id: number }> }).notes.map((n) => n.id).sort(), [1, 2]);
      const prefix = await client.callTool('search_notes', { query: 'tram tou' });
      assert.deepEqual(prefix.structuredContent, {
        notes: [{ id: 1, uri: 'note://1', title: 'Trip to Lisbon', snippet: 'Pack the camera; book the [tram] [tour].' }],
      });
      // What a user types is words, never FTS5 syntax.
      assert.deepEqual((await client.callTool('search_notes', { query: 'NOT "camera' })).isError, undefined);

      const updated = await client.callTool('update_note', { id: 2, body: 'Fixed: the shutter works.' });
      assert.equal(text(updated), 'Updated note 2 (Camera repair).');
      assert.deepEqual((await client.callTool('search_notes', { query: 'sticks' })).structuredContent, { notes: [] });

      const missing = await client.callTool('delete_note', { id: 99 });
      assert.equal(missing.isError, true);
      assert.match(text(missing), /There is no note 99/);
      const invalid = await client.callTool('add_note', { title: '' });
      assert.equal(invalid.isError, true);

      const db = new Database(file, { readonly: true });
      try {
        assert.deepEqual(db.prepare('SELECT id, title, body FROM notes ORDER BY id').all(), [
          { id: 1, title: 'Trip to Lisbon', body: 'Pack the camera; book the tram tour.' },
          { id: 2, title: 'Camera repair', body: 'Fixed: the shutter works.' },
        ]);
      } finally {
        db.close();
      }
    });

    test('notes are resources (note://{id}), completed by id; an unknown one is the revision’s not-found error', async () => {
      assert.deepEqual(
        (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
        ['note://{id}'],
      );
      assert.deepEqual(
        (await client.listResources()).resources.map((r) => [r.uri, r.name]),
        [
          ['note://1', 'Trip to Lisbon'],
          ['note://2', 'Camera repair'],
        ],
      );
      const read = await client.readResource('note://2');
      assert.deepEqual(read.contents, [
        { uri: 'note://2', mimeType: 'text/markdown', text: '# Camera repair\n\nFixed: the shutter works.\n' },
      ]);
      const completion = await client.complete({ type: 'ref/resource', uri: 'note://{id}' }, { name: 'id', value: '' });
      assert.deepEqual(completion.values, ['1', '2']);
      await assert.rejects(client.readResource('note://42'), (e: unknown) => {
        assert.ok(e instanceof McpError);
        assert.equal(e.code, era === 'modern' ? -32602 : -32002);
        assert.match(e.message, /No note at note:\/\/42/);
        return true;
      });
    });

    test('the prompt embeds the notes about a topic', async () => {
      const prompt = await client.getPrompt('summarize_notes', { topic: 'lisbon' });
      assert.equal(prompt.messages.length, 2);
      assert.match(JSON.stringify(prompt.messages[0]!.content), /Summarise these 1 notes about \\"lisbon\\"/);
      assert.deepEqual(prompt.messages[1]!.content, {
        type: 'resource',
        resource: { uri: 'note://1', mimeType: 'text/markdown', text: '# Trip to Lisbon\n\nPack the camera; book the tram tour.\n' },
      });
      const none = await client.getPrompt('summarize_notes', { topic: 'volcano' });
      assert.match(JSON.stringify(none.messages), /There are no notes about/);
    });

    test('changes reach listeners: list_changed for every change, resources/updated for a subscribed note', async () => {
      const heard: string[] = [];
      const stop = new AbortController();
      const listening = (async () => {
        for await (const n of client.listen(
          { resourcesListChanged: true, resourceSubscriptions: ['note://1', 'note://2'] },
          { signal: stop.signal },
        ))
          heard.push(`${n.method} ${String((n.params as { uri?: string } | undefined)?.uri ?? '')}`.trim());
      })();
      try {
        // The subscription is in place once a change to a subscribed note is heard.
        await until(
          async () => {
            await client.callTool('update_note', { id: 1, title: 'Trip to Lisbon' });
            return heard.includes('notifications/resources/updated note://1');
          },
          'the listen stream to hear an update of note://1',
          30_000,
        );
        let mark = heard.length;
        const since = () => heard.slice(mark);

        await client.callTool('add_note', { title: 'Third', body: 'another' });
        await until(() => since().includes('notifications/resources/list_changed'), 'list_changed after add_note', 30_000);
        assert.ok(!since().some((h) => h.startsWith('notifications/resources/updated')), since().join(', '));

        mark = heard.length;
        await client.callTool('update_note', { id: 2, body: 'Still fixed.' });
        await until(() => since().includes('notifications/resources/updated note://2'), 'updated note://2', 30_000);

        mark = heard.length;
        await client.callTool('delete_note', { id: 2 });
        await until(
          () => since().includes('notifications/resources/updated note://2') && since().includes('notifications/resources/list_changed'),
          'updated note://2 and list_changed after delete_note',
          30_000,
        );
        assert.deepEqual(
          (await client.listResources()).resources.map((r) => r.uri),
          ['note://1', 'note://3'],
        );
      } finally {
        stop.abort();
        await listening;
      }
    });
  });
}

describe('migrations on start', () => {
  test('a database of the first schema is upgraded in place, its notes kept and made searchable', async () => {
    const file = join(work, 'old.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE notes (
      id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, body TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
      updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`);
    old.prepare('INSERT INTO notes (title, body) VALUES (?, ?)').run('From before', 'written by version one');
    old.pragma('user_version = 1');
    old.close();

    const client = await connect({ command: 'node', args: ['dist/main.js', '--db', file], cwd: project.dir, stderr: 'ignore' });
    try {
      const found = await client.callTool('search_notes', { query: 'version one' });
      assert.deepEqual(
        (found.structuredContent as { notes: Array<{ title: string }> }).notes.map((n) => n.title),
        ['From before'],
      );
    } finally {
      await client.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      assert.equal(db.pragma('user_version', { simple: true }), 2);
    } finally {
      db.close();
    }
  });

  test('a database from a newer version is refused at start, saying why', async () => {
    const file = join(work, 'newer.db');
    const newer = new Database(file);
    newer.pragma('user_version = 9');
    newer.close();
    await assert.rejects(run('node', ['dist/main.js', '--db', file], { cwd: project.dir }), (e: Error) => {
      assert.match(
        e.message,
        new RegExp(`cannot open .*${basename(file)}: the database has schema version 9, newer than this program's 2`),
      );
      return true;
    });
  });
});

test("the README's TypeScript compiles against the package", async () => {
  assert.deepEqual(await typeCheckReadme(project, NAME), []);
});
