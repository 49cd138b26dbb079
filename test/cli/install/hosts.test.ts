/**
 * `janus-mcp install HOST SERVER` for each host, through the real command: the file at its
 * place, a fresh one and one merged with other servers and settings (kept as they were), a
 * same-name entry refused without --force, a file that is not JSON refused and left alone,
 * --dry-run writing nothing, and a written entry that starts the server.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { type Machine, at, install, installed, machine, readJson, startEntry, writeStdioServer } from './support.js';

interface HostCase {
  readonly id: string;
  /** The file install writes by default on Linux. */
  file(m: Machine): string;
  /** The keys down to the servers. */
  path(m: Machine): string[];
  /** Entries carry `type: 'stdio'`. */
  readonly typed: boolean;
}

const HOSTS: HostCase[] = [
  {
    id: 'claude-desktop',
    file: (m) => join(m.xdg, 'Claude', 'claude_desktop_config.json'),
    path: () => ['mcpServers'],
    typed: false,
  },
  {
    id: 'claude-code',
    file: (m) => join(m.home, '.claude.json'),
    path: (m) => ['projects', m.project, 'mcpServers'],
    typed: true,
  },
  { id: 'cursor', file: (m) => join(m.home, '.cursor', 'mcp.json'), path: () => ['mcpServers'], typed: false },
  { id: 'vscode', file: (m) => join(m.project, '.vscode', 'mcp.json'), path: () => ['servers'], typed: true },
  { id: 'windsurf', file: (m) => join(m.home, '.codeium', 'windsurf', 'mcp_config.json'), path: () => ['mcpServers'], typed: false },
];

/** An existing file: another server, other settings, a number JSON.parse would round, 4-space indentation. */
function existingText(m: Machine, host: HostCase): string {
  const path = host.path(m);
  const servers = { other: { command: 'uvx', args: ['other-server'], env: { TOKEN: 'secret' } } };
  let value: Record<string, unknown> = { [path.at(-1)!]: servers, theme: 'dark' };
  for (const key of path.slice(0, -1).reverse()) value = { [key]: value };
  const text = JSON.stringify({ numStartups: 3, ...value, tips: { seen: [1, 2] }, userID: 'u-1' }, null, 4);
  return `${text.slice(0, -2)},\n    "huge": 12345678901234567890\n}\n`;
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

for (const host of HOSTS) {
  describe(`install ${host.id}`, () => {
    test('a fresh file: the entry, with absolute paths and env, that starts the server', async () => {
      const m = machine();
      const server = writeStdioServer(m);
      const r = await installed(m, [host.id, 'server.mjs', '--env', 'GREETING=hello from env']);
      const file = host.file(m);
      assert.ok(r.stdout.includes(file), r.stdout);
      assert.match(r.stdout, /the server "weather-mcp" added/);
      assert.match(r.stdout, /^Next: /m);
      const entry = at(readJson(file), [...host.path(m), 'weather-mcp']);
      assert.deepEqual(entry, {
        ...(host.typed ? { type: 'stdio' } : {}),
        command: 'node',
        args: [server],
        env: { GREETING: 'hello from env' },
      });
      const client = await startEntry(entry, m.root);
      try {
        assert.deepEqual(
          (await client.listTools()).tools.map((t) => t.name),
          ['greeting'],
        );
        assert.deepEqual((await client.callTool('greeting')).content, [{ type: 'text', text: 'hello from env' }]);
      } finally {
        await client.close();
      }
    });

    test('merged with a file of other servers and settings, which stay as they were', async () => {
      const m = machine();
      writeStdioServer(m);
      const file = host.file(m);
      const before = existingText(m, host);
      write(file, before);
      await installed(m, [host.id, 'node server.mjs', '--name', 'weather']);
      const after = readFileSync(file, 'utf8');
      const expected = JSON.parse(before) as Record<string, unknown>;
      const servers = at(expected, host.path(m)) as Record<string, unknown>;
      servers.weather = { ...(host.typed ? { type: 'stdio' } : {}), command: 'node', args: [join(m.project, 'server.mjs')] };
      assert.deepEqual(JSON.parse(after), expected);
      // Edited in place: the rest of the text is byte for byte what it was.
      assert.ok(after.includes('"huge": 12345678901234567890'), after);
      assert.ok(after.includes('"other": {\n'), after);
      assert.ok(after.startsWith('{\n    "numStartups": 3,\n'), after);
    });

    test('an entry of the same name is refused without --force, and replaced with it', async () => {
      const m = machine();
      writeStdioServer(m);
      const file = host.file(m);
      const before = existingText(m, host);
      write(file, before);
      const refused = await install(m, [host.id, 'node server.mjs', '--name', 'other']);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /already has a server named "other".*--force/);
      assert.ok(refused.stderr.includes(file), refused.stderr);
      assert.equal(readFileSync(file, 'utf8'), before);

      await installed(m, [host.id, 'node server.mjs', '--name', 'other', '--force']);
      const after = readJson(file);
      const expected = JSON.parse(before) as Record<string, unknown>;
      const servers = at(expected, host.path(m)) as Record<string, unknown>;
      servers.other = { ...(host.typed ? { type: 'stdio' } : {}), command: 'node', args: [join(m.project, 'server.mjs')] };
      assert.deepEqual(after, expected);
    });

    test('a file that is not JSON is refused, named with the mistake, and left untouched', async () => {
      const m = machine();
      writeStdioServer(m);
      const file = host.file(m);
      const broken = '{\n  "mcpServers": {\n    "other": { "command": "x" }\n  \n';
      write(file, broken);
      const r = await install(m, [host.id, 'server.mjs']);
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.stderr.includes(file), r.stderr);
      assert.match(r.stderr, /is not valid JSON.*line 5, column 1/);
      assert.equal(readFileSync(file, 'utf8'), broken);
    });

    test('--dry-run prints the path and the new content, and writes nothing', async () => {
      const m = machine();
      const server = writeStdioServer(m);
      const r = await installed(m, [host.id, 'server.mjs', '--dry-run']);
      const file = host.file(m);
      assert.ok(r.stderr.includes(file), r.stderr);
      assert.match(r.stderr, /nothing written/);
      assert.deepEqual(at(JSON.parse(r.stdout), [...host.path(m), 'weather-mcp', 'args']), [server]);
      assert.equal(existsSync(file), false);
    });
  });
}
