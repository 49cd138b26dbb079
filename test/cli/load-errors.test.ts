/**
 * `janus-mcp serve` and `dev` when the module does not load: the message names the module,
 * the file:line:column where the error arose (a syntax error: where Node places it, in the
 * module itself or in one it imports; a thrown error: the top frame of the user's code), shows
 * that line and the user's stack frames. A TypeScript file is loaded through the project's tsx
 * when it has one, else the message says how to serve it. And on stdio, what the module prints
 * while it loads, `process.stdout.write` included, goes to stderr with one line saying so.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { exited } from '../support/example-process.js';
import { until } from '../support/wait.js';
import { CLI_MAIN, SERVER_ENTRY, runCli, scratch, startCli } from './support.js';

/** A folder whose .js files are ES modules (as in a project with "type": "module"). */
function esmProject(): string {
  const dir = scratch();
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  return dir;
}

const serverModule = (tool: string) =>
  [
    `import { createServer } from ${JSON.stringify(SERVER_ENTRY)};`,
    "const server = createServer({ name: 'load-fixture', version: '1.0.0' });",
    `server.tool(${JSON.stringify(tool)}, () => 'ok');`,
    'export default server;',
  ].join('\n');

describe('serve: a module that fails to load says where', () => {
  test('an error thrown while the module runs: its file:line:column, the line, the stack', { timeout: 60_000 }, async () => {
    const dir = esmProject();
    const file = join(dir, 'throws.js');
    writeFileSync(file, `${serverModule('a')}\nconst config = JSON.parse('not json');\n`);
    const r = await runCli(['serve', file]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^janus-mcp: loading .*throws\.js failed: SyntaxError: Unexpected token 'o', "not json" is not valid JSON$/m);
    assert.match(r.stderr, new RegExp(`^  at ${literal(file)}:5:21$`, 'm'));
    assert.match(r.stderr, /^ {4}const config = JSON\.parse\('not json'\);\n {24}\^$/m);
    assert.match(r.stderr, /^ {2}stack:\n {4}at JSON\.parse \(<anonymous>\)\n {4}at file:\/\/.*throws\.js:5:21$/m);
    assert.doesNotMatch(r.stderr, /node:internal/);
  });

  test('a syntax error in a module it imports: that module’s file:line:column and line', { timeout: 60_000 }, async () => {
    const dir = esmProject();
    writeFileSync(join(dir, 'helper.js'), "export const a = 1;\nthis is 'not JavaScript';\n");
    const file = join(dir, 'server.js');
    writeFileSync(file, `import { a } from './helper.js';\n${serverModule('a')}\n`);
    const r = await runCli(['serve', file]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^janus-mcp: loading .*server\.js failed: SyntaxError: Unexpected identifier 'is'$/m);
    assert.match(r.stderr, new RegExp(`^  at ${literal(join(dir, 'helper.js'))}:2:6$`, 'm'));
    assert.match(r.stderr, /^ {4}this is 'not JavaScript';\n {9}\^\^$/m);
  });

  test('the function it exports throws: where', { timeout: 60_000 }, async () => {
    const dir = esmProject();
    const file = join(dir, 'factory.js');
    writeFileSync(file, "export default async () => {\n  throw new Error('no database');\n};\n");
    const r = await runCli(['serve', file]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^janus-mcp: the function .*factory\.js exports failed: Error: no database$/m);
    assert.match(r.stderr, new RegExp(`^  at ${literal(file)}:2:9$`, 'm'));
  });

  test('a .ts file in a project without tsx: how to serve it', { timeout: 60_000 }, async () => {
    const file = join(esmProject(), 'server.ts');
    writeFileSync(file, `${serverModule('a')}\nconst n: number = 1;\n`);
    const r = await runCli(['serve', file]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /server\.ts is TypeScript, which Node v[\d.]+ does not load by itself\. Compile it first \(npx tsc\)/);
    assert.match(r.stderr, /npm install --save-dev tsx/);
  });

  test('a .ts file in a project with tsx: loaded through it, and served', { timeout: 60_000 }, async () => {
    const dir = esmProject();
    // The project's tsx: this repository's, linked into the scratch project.
    const tsx = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(tsx, join(dir, 'node_modules', 'tsx'), 'dir');
    const file = join(dir, 'server.ts');
    writeFileSync(
      file,
      [
        `import { createServer } from ${JSON.stringify(SERVER_ENTRY)};`,
        "const greeting: string = 'hello from TypeScript';",
        "const server = createServer({ name: 'ts-fixture', version: '1.0.0' });",
        "server.tool('greet', (): string => greeting);",
        'export default server;',
      ].join('\n'),
    );
    // The server's stderr comes through the command that started it.
    const r = await runCli(['call', `${process.execPath} ${CLI_MAIN} serve ${file}`, 'greet']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hello from TypeScript\n');
    assert.match(r.stderr, /^janus-mcp: loading .*server\.ts with tsx \d+\.\d+\.\d+ \(/m);
  });
});

test('dev: a reload that fails on a syntax error says where, and the old definitions stay', { timeout: 90_000 }, async () => {
  const dir = esmProject();
  const file = join(dir, 'server.js');
  writeFileSync(file, `${serverModule('first')}\n`);
  const running = startCli(['dev', file, '--http', '127.0.0.1:0']);
  try {
    const url = await running.url();
    writeFileSync(file, `${serverModule('second')}\nthis is a mistake\n`);
    await until(() => /reloading .*server\.js failed/.test(running.stderr()), 'the failed reload', 30_000);
    await until(() => /\^\^/.test(running.stderr()), 'the whole message', 10_000);
    assert.match(
      running.stderr(),
      /^janus-mcp: reloading .*server\.js failed, the previous definitions stay: loading .*server\.js failed: SyntaxError: Unexpected identifier 'is'$/m,
    );
    assert.match(running.stderr(), new RegExp(`^  at ${literal(file)}:5:6$`, 'm'));
    assert.match(running.stderr(), /^ {4}this is a mistake\n {9}\^\^$/m);
    const client = await connect(url.href);
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['first'],
      );
    } finally {
      await client.close();
    }
  } finally {
    assert.equal(await running.stop(), 0, running.stderr());
  }
});

test('serve over stdio: what the module prints while it loads goes to stderr, said once', { timeout: 60_000 }, async () => {
  const dir = esmProject();
  const file = join(dir, 'server.js');
  writeFileSync(
    file,
    `console.log('a log line on import');\nprocess.stdout.write('a stray write on import\\n');\nconsole.dir({ dir: 1 });\n${serverModule('a')}\n`,
  );
  const child = spawn(process.execPath, [CLI_MAIN, 'serve', file], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exit = exited(child);
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
  );
  await until(() => stdout.includes('"id":1'), 'the initialize result', 20_000);
  child.stdin.end();
  assert.equal(await exit, 0, stderr);
  for (const line of stdout.trimEnd().split('\n')) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, '2.0', line);
  assert.match(
    stderr,
    /^janus-mcp: console\.log\/stdout writes go to stderr: stdout carries the MCP protocol\na log line on import\na stray write on import\n\{ dir: 1 \}$/m,
  );
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
