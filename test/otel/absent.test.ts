/**
 * `@opentelemetry/api` is an optional peer dependency: with @opentelemetry/api absent,
 * nothing is loaded. A child `node` process runs with resolution hooks
 * (fixtures/resolve-hooks.ts) that log every specifier it resolves and can make
 * `@opentelemetry/*` unresolvable, as when the package is not installed: a program using the
 * server, client, stdio, http and testing entry points works and resolves nothing of
 * OpenTelemetry nor of src/otel; importing the otel entry then fails naming the package.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const HOOKS = here('./fixtures/register-hooks.js');
const PROGRAM = here('./fixtures/no-otel-program.js');
const OTEL_ENTRY = new URL('../../src/otel/index.js', import.meta.url).href;

const work = mkdtempSync(join(tmpdir(), 'janus-otel-absent-'));
after(() => rmSync(work, { recursive: true, force: true }));
let runs = 0;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every `specifier -> url` the child resolved. */
  resolved: string[];
}

function runNode(args: string[], hide: boolean): Promise<Ran> {
  const log = join(work, `resolved-${++runs}.log`);
  const env: NodeJS.ProcessEnv = { ...process.env, JANUS_RESOLVE_LOG: log, JANUS_HIDE_OTEL: hide ? '1' : '0' };
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', HOOKS, ...args], { env, timeout: 60_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      let resolved: string[] = [];
      try {
        resolved = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      } catch {}
      resolve({ code: error ? ((error as { code?: unknown }).code as number | null) : 0, stdout, stderr, resolved });
    });
  });
}

describe('without @opentelemetry/api', () => {
  test('a program using the server, client, stdio, http and testing entries serves and calls a tool and loads nothing of OpenTelemetry', async () => {
    const ran = await runNode([PROGRAM], true);
    assert.equal(ran.code, 0, ran.stderr);
    const out = JSON.parse(ran.stdout) as { texts: unknown[]; stdio: boolean };
    assert.deepEqual(out.texts, [
      [{ type: 'text', text: 'Hello, legacy!' }],
      [{ type: 'text', text: 'Hello, modern!' }],
      [{ type: 'text', text: 'Hello, memory!' }],
    ]);
    assert.ok(out.stdio);
    assert.ok(
      ran.resolved.some((line) => line.includes('/src/server/index.js')),
      `the hooks saw the program's imports: ${ran.resolved.slice(0, 5).join('; ')}`,
    );
    const otel = ran.resolved.filter((line) => /@opentelemetry|\/src\/otel\//.test(line));
    assert.deepEqual(otel, [], 'nothing of OpenTelemetry, nor janus-mcp/otel, was resolved');
  });

  test('importing janus-mcp/otel fails with an error naming @opentelemetry/api', async () => {
    const ran = await runNode(['--input-type=module', '-e', `await import(${JSON.stringify(OTEL_ENTRY)});`], true);
    assert.notEqual(ran.code, 0);
    assert.match(ran.stderr, /ERR_MODULE_NOT_FOUND/);
    assert.match(ran.stderr, /Cannot find package '@opentelemetry\/api'/);
  });

  test('the control: with the package there, the same hooks see the otel entry load it', async () => {
    const ran = await runNode(
      ['--input-type=module', '-e', `const m = await import(${JSON.stringify(OTEL_ENTRY)}); console.log(Object.keys(m).sort().join());`],
      false,
    );
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout.trim(), 'clientTracing,instrumentClient,instrumentServer,serverTracing');
    assert.ok(ran.resolved.some((line) => line.startsWith('@opentelemetry/api -> ')));
  });
});
