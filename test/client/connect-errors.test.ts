/**
 * Errors that name the cause and the fix, over stdio with real child processes: a command
 * that does not exist, a working directory that does not exist, `false`, a server that
 * writes to stderr and exits with code 3, one killed by a signal, and a call that times out.
 * stdio.mdx lets the client capture, forward or ignore the server's stderr: the client keeps
 * its last lines for the error and, by default, still forwards it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { ChannelError, JanusError, ProcessChannelError } from '../../src/errors/index.js';
import { connect } from '../../src/client/index.js';
import { fixture } from '../support/common.js';
import { FIXTURE_STDIO } from './helpers.js';

const CRASH = fixture('client-raw', 'crash.js');
const REPORT = fixture('client-raw', 'connect-report.js');

/** Connects to the crash fixture with these settings and returns the error connect() failed with. */
async function crashError(env: Record<string, string>, options: { probeTimeoutMs?: number } = {}): Promise<ProcessChannelError> {
  const e = await connect({ command: process.execPath, args: [CRASH], env, stderr: 'ignore' }, options).then(
    async (c) => (await c.close(), assert.fail('connect() succeeded against a server that exits')),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ProcessChannelError, `expected a ProcessChannelError, got ${String(e)}`);
  assert.ok(e instanceof ChannelError, 'a ProcessChannelError is a ChannelError');
  return e;
}

test('a command that does not exist: "command not found (ENOENT)" with the command line and what to check; the spawn error is the cause', async () => {
  const e = await connect('janus-no-such-command --serve').then(
    () => assert.fail('connected'),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ProcessChannelError, `got ${String(e)}`);
  assert.match(e.message, /could not start the MCP server "janus-no-such-command --serve": command not found \(ENOENT\)/);
  assert.match(e.message, /on the PATH/);
  assert.equal((e.cause as { code?: string } | undefined)?.code, 'ENOENT');
  assert.equal(e.command, 'janus-no-such-command --serve');
});

test('a working directory that does not exist is named as such, not as a missing command', async () => {
  const e = await connect({ command: process.execPath, args: ['-e', '0'], cwd: '/janus-no-such-dir/x' }).then(
    () => assert.fail('connected'),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ProcessChannelError, `got ${String(e)}`);
  assert.match(e.message, /working directory "\/janus-no-such-dir\/x" does not exist \(ENOENT\)/);
  assert.match(e.message, /cwd option/);
});

test('`false`: "exited with code 1", with the command line, and that it wrote nothing to stderr', async () => {
  const e = await connect('false').then(
    () => assert.fail('connected'),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ProcessChannelError, `got ${String(e)}`);
  assert.match(e.message, /the MCP server "false" exited with code 1/);
  assert.match(e.message, /wrote nothing to stderr/);
  assert.equal(e.exitCode, 1);
  assert.equal(e.signal, null);
});

test('a server that writes to stderr and exits with code 3: the exit code, the command line and the last lines of its stderr', async () => {
  const e = await crashError({ CRASH_CODE: '3', CRASH_LINES: '2' });
  assert.match(e.message, /exited with code 3 while server\/discover( and ping)? (was|were) waiting for an answer/);
  assert.ok(e.message.includes(`"${process.execPath} ${CRASH}"`), e.message);
  assert.match(e.message, /The last lines of its stderr:\n {2}\| crash line 1\n {2}\| crash line 2\n/);
  assert.match(e.message, /Check that the command starts an MCP server/);
  assert.equal(e.exitCode, 3);
  assert.deepEqual(e.stderrTail, ['crash line 1', 'crash line 2']);
});

test('a server killed by a signal: "was killed by signal SIGKILL"', async () => {
  const e = await crashError({ CRASH_SIGNAL: 'SIGKILL', CRASH_LINES: '0' });
  assert.match(e.message, /was killed by signal SIGKILL/);
  assert.equal(e.signal, 'SIGKILL');
  assert.equal(e.exitCode, null);
});

test('the stderr tail is bounded: the last 20 lines, at most 8 KiB', async () => {
  const many = await crashError({ CRASH_LINES: '100' });
  assert.equal(many.stderrTail.length, 20);
  assert.equal(many.stderrTail[0], 'crash line 81');
  assert.equal(many.stderrTail[19], 'crash line 100');
  assert.ok(!many.message.includes('crash line 80\n'), 'line 80 should have been dropped');
  const wide = await crashError({ CRASH_LINES: '30', CRASH_PAD: '1000' });
  const chars = wide.stderrTail.reduce((n, l) => n + l.length, 0);
  assert.ok(chars <= 8192, `kept ${chars} characters`);
  assert.ok(wide.stderrTail.length >= 5, `kept only ${wide.stderrTail.length} lines`);
  assert.match(wide.stderrTail[wide.stderrTail.length - 1]!, /^crash line 30 x+$/);
});

test('a child that exits while the probe is still waiting for a start (after the ping) gets its exit error, not a legacy verdict', async () => {
  // probeTimeoutMs 300: a clock counting from the spawn would have decided "legacy" and be waiting for initialize.
  const e = await crashError({ CRASH_AFTER_MS: '2500', CRASH_CODE: '7' }, { probeTimeoutMs: 300 });
  assert.match(e.message, /exited with code 7 while server\/discover and ping were waiting for an answer/);
  assert.doesNotMatch(e.message, /initialize/);
});

test("stderr 'inherit' (the default) still shows the child's stderr as it comes, and the error carries its tail too", async () => {
  const proc = spawn(process.execPath, [REPORT, process.execPath, CRASH], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CRASH_LINES: '3' },
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (err += c));
  const code = await new Promise<number | null>((resolve) => {
    const kill = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.once('exit', (c) => (clearTimeout(kill), resolve(c)));
  });
  assert.equal(code, 0, err);
  assert.match(err, /crash line 1\ncrash line 2\ncrash line 3\n/, "the child's stderr reached the client's stderr");
  const report = JSON.parse(out) as { name: string; message: string };
  assert.equal(report.name, 'ProcessChannelError');
  assert.match(report.message, /exited with code 3/);
  assert.match(report.message, /\| crash line 3/);
});

test('a call that times out names the step and the duration: "tools/call timed out … 300 ms"', async () => {
  const client = await connect({ command: process.execPath, args: [FIXTURE_STDIO], stderr: 'ignore' });
  try {
    await assert.rejects(client.callTool('block', {}, { timeoutMs: 300 }), (e: unknown) => {
      assert.ok(e instanceof JanusError && e.code === 'TIMEOUT', `got ${String(e)}`);
      assert.match(e.message, /^tools\/call timed out: the server sent no answer within 300 ms\. .*raise timeoutMs/);
      return true;
    });
  } finally {
    await client.close();
  }
});
