/**
 * docs/deployment.md, "Debugging": the MCP Inspector (a dev dependency of this repository) in
 * CLI mode against the page's server over stdio and over Streamable HTTP, in both eras; its web
 * UI only as far as starting and serving its page.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { root, run } from '../package/support.js';
import { baseEnv, builtServer, freePort, start, stop, waitForOutput, type Started } from './support.js';

const inspector = join(root, 'node_modules', '.bin', 'mcp-inspector');
const work = mkdtempSync(join(tmpdir(), 'janus-inspector-'));
const dir = builtServer(join(work, 'server'));
const started: Started[] = [];
let url = '';

before(async () => {
  const port = await freePort();
  const http = start(process.execPath, ['dist/server.js', '--http'], { cwd: dir, env: baseEnv({ PORT: String(port) }) });
  started.push(http);
  await waitForOutput(http, 'listening on');
  url = `http://127.0.0.1:${port}/mcp`;
});
after(async () => {
  for (const p of started) await stop(p);
  rmSync(work, { recursive: true, force: true });
});

/** `mcp-inspector --cli …` with `--format json`: its one JSON object. */
async function cli(args: string[]): Promise<{ result: Record<string, unknown> }> {
  const { stdout } = await run(inspector, ['--cli', ...args, '--format', 'json'], { cwd: dir, timeout: 120_000 });
  return JSON.parse(stdout) as { result: Record<string, unknown> };
}

const toolNames = (r: { result: Record<string, unknown> }) => (r.result.tools as Array<{ name: string }>).map((t) => t.name);

for (const target of ['stdio', 'http'] as const)
  for (const era of ['legacy', 'modern'] as const)
    test(`the Inspector CLI lists and calls the tool over ${target}, ${era} era`, { timeout: 150_000 }, async () => {
      const server = target === 'stdio' ? ['node', 'dist/server.js'] : [url];
      const listed = await cli([...server, '--protocol-era', era, '--method', 'tools/list']);
      assert.deepEqual(toolNames(listed), ['add_note']);
      const called = await cli([
        ...server,
        '--protocol-era',
        era,
        '--method',
        'tools/call',
        '--tool-name',
        'add_note',
        '--tool-arg',
        'text=hello',
      ]);
      const content = called.result.content as Array<{ type: string; text: string }>;
      assert.match(content[0]!.text, /^\d+ note\(s\)$/);
      // A 2026-07-28 result names its server in _meta; a handshake-era result does not.
      const meta = called.result._meta as Record<string, unknown> | undefined;
      assert.equal(meta?.['io.modelcontextprotocol/serverInfo'] !== undefined, era === 'modern', JSON.stringify(called));
    });

test('the Inspector web UI starts and serves its page (the UI itself is not exercised)', { timeout: 150_000 }, async () => {
  const [clientPort, serverPort] = [await freePort(), await freePort()];
  const ui = start(inspector, ['node', 'dist/server.js'], {
    cwd: dir,
    env: baseEnv({ CLIENT_PORT: String(clientPort), SERVER_PORT: String(serverPort), MCP_AUTO_OPEN_ENABLED: 'false' }),
  });
  started.push(ui);
  await waitForOutput(ui, 'is up and running at', 120_000);
  const page = /http:\/\/127\.0\.0\.1:\d+\S*/.exec(ui.output())![0];
  const response = await fetch(page);
  assert.equal(response.status, 200);
  assert.match(await response.text(), /<html/i);
  await stop(ui);
});
