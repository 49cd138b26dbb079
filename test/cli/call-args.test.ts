/**
 * `janus-mcp call … --arg key=value`: the value typed as the tool's input schema says (the
 * tools are listed first). A string property gets the text as typed (`--arg id=7` is "7", which
 * the server's validation would refuse as a number), a number or integer the number, a boolean
 * true/false, an array or object its JSON; where the schema says nothing, the value is read as
 * JSON when it parses. A value that is not of its type is a usage error naming the argument.
 * And what the client skips on a stdio server's stdout is said on stderr.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixture } from '../support/common.js';
import { runCli } from './support.js';

const TARGET = `${process.execPath} ${fixture('typed-args-stdio.js')}`;

test('--arg values typed by the tool’s input schema', { timeout: 60_000 }, async () => {
  const r = await runCli([
    'call',
    TARGET,
    'echo',
    '--arg',
    'id=7',
    '--arg',
    'count=3',
    '--arg',
    'ratio=0.5',
    '--arg',
    'flag=false',
    '--arg',
    'tags=["a","b"]',
    '--arg',
    'meta={"k":1}',
    '--arg',
    'color=7',
    '--arg',
    'either=8',
    '--arg',
    'free=5',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    id: '7',
    count: 3,
    ratio: 0.5,
    flag: false,
    tags: ['a', 'b'],
    meta: { k: 1 },
    color: '7',
    either: '8',
    free: 5,
  });
});

test('--arg: the JSON positional is taken as it is, --arg on top of it', { timeout: 60_000 }, async () => {
  const r = await runCli(['call', TARGET, 'echo', '{"id":"a","count":1}', '--arg', 'id=007', '--arg', 'either=null']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { id: '007', count: 1, either: null });
});

test('--arg with a value not of its schema type: exit 2, naming the argument and the type', { timeout: 60_000 }, async () => {
  const count = await runCli(['call', TARGET, 'echo', '--arg', 'count=three']);
  assert.equal(count.code, 2, count.stderr);
  assert.match(count.stderr, /^janus-mcp: --arg count: the tool's input schema says count is an integer, and "three" is not$/m);
  const ratio = await runCli(['call', TARGET, 'echo', '--arg', 'count=1.5']);
  assert.equal(ratio.code, 2, ratio.stderr);
  assert.match(ratio.stderr, /--arg count: .* an integer, and "1\.5" is not/);
  const flag = await runCli(['call', TARGET, 'echo', '--arg', 'flag=yes']);
  assert.equal(flag.code, 2, flag.stderr);
  assert.match(flag.stderr, /--arg flag: .* a boolean \(true or false\), and "yes" is not/);
  const tags = await runCli(['call', TARGET, 'echo', '--arg', 'tags=a,b']);
  assert.equal(tags.code, 2, tags.stderr);
  assert.match(tags.stderr, /--arg tags: .* an array/);
});

test('a line on the server’s stdout that is not a message: a warning on stderr, and the call goes on', { timeout: 60_000 }, async () => {
  const r = await runCli(['call', TARGET, 'noisy']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'done\n');
  assert.match(
    r.stderr,
    /^janus-mcp: warning: skipped a line on the server's stdout: "debug from handler" is not JSON \(stdout must carry only MCP messages: a server logs on stderr\)$/m,
  );
});
