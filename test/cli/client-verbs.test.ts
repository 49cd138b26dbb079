/**
 * `janus-mcp discover`, `list` and `call` through the real process, against the everything
 * fixture over Streamable HTTP on 127.0.0.1 and over stdio: human
 * and `--json` output, exit codes (0, 1 for a tool error or a failed call, 2 for usage), progress
 * on stderr, elicitation answered from `--answers` or refused (`--no-input`, stdin not a
 * terminal), sampling answered by `--sampler`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, startExample, stopExample, type ExampleProcess } from '../support/example-process.js';
import { ALL_VERSIONS, INFO, INSTRUCTIONS, TEXT } from '../support/everything-fixture.js';
import { STDIO_TARGET, runCli, scratch } from './support.js';

let example: ExampleProcess;
let http: string;
before(async () => {
  example = await startExample();
  http = example.url.href;
});
after(() => stopExample(example));

describe('usage errors exit with 2, one line and a hint to --help', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['an unknown verb', ['frobnicate'], /unknown verb "frobnicate"/],
    ['an unknown flag', ['list', STDIO_TARGET, '--colour'], /Unknown option '--colour'/],
    ['a missing TARGET', ['discover'], /missing TARGET/],
    ['bad JSON arguments', ['call', STDIO_TARGET, 'test_simple_text', '{oops'], /the arguments are not JSON/],
    ['JSON arguments that are not an object', ['call', STDIO_TARGET, 'test_simple_text', '[1]'], /must be a JSON object/],
    ['an --arg without =', ['call', STDIO_TARGET, 'test_simple_text', '--arg', 'novalue'], /--arg needs key=value/],
    ['an unknown list kind', ['list', STDIO_TARGET, 'gadgets'], /"gadgets" is not one of tools, prompts, resources, templates/],
    ['an unknown protocol version', ['discover', STDIO_TARGET, '--protocol-version', '1999-01-01'], /unknown protocol version/],
    ['a proxy without upstream', ['proxy', '--port', '0'], /name the upstream/],
    ['serve without FILE', ['serve'], /missing FILE/],
  ];
  for (const [what, args, message] of cases) {
    test(what, async () => {
      const r = await runCli(args);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 2, r.stderr);
      assert.match(lines[0]!, /^janus-mcp: /);
      assert.match(lines[0]!, message);
      assert.match(lines[1]!, /^Run 'janus-mcp (\w+ )?--help' for usage\.$/);
    });
  }
});

test('--help of the command and of each verb, --version from package.json', async () => {
  const top = await runCli(['--help']);
  assert.equal(top.code, 0);
  for (const verb of ['discover', 'list', 'call', 'serve', 'dev', 'proxy']) assert.match(top.stdout, new RegExp(`^  ${verb} `, 'm'));
  for (const verb of ['discover', 'list', 'call', 'serve', 'dev', 'proxy']) {
    const r = await runCli([verb, '--help']);
    assert.equal(r.code, 0, verb);
    assert.match(r.stdout, new RegExp(`^Usage: janus-mcp ${verb} `), verb);
  }
  const version = await runCli(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\S*\n$/);
});

describe('discover', () => {
  test('over HTTP, --json: era, version, server info, capabilities and instructions', async () => {
    const r = await runCli(['discover', http, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const found = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(found.era, 'modern');
    assert.equal(found.protocolVersion, '2026-07-28');
    assert.equal(found.transport, 'http');
    assert.deepEqual(found.supportedVersions, ALL_VERSIONS);
    assert.equal((found.serverInfo as { name: string }).name, INFO.name);
    assert.equal(found.instructions, INSTRUCTIONS);
    assert.ok((found.capabilities as Record<string, unknown>).tools);
  });

  test('over stdio pinned to 2025-06-18: the legacy era, as text', async () => {
    const r = await runCli(['discover', STDIO_TARGET, '--protocol-version', '2025-06-18']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^era: +legacy$/m);
    assert.match(r.stdout, /^protocol: +2025-06-18$/m);
    assert.match(r.stdout, /^transport: +stdio$/m);
    assert.match(r.stdout, new RegExp(`^server: +${INFO.name} ${INFO.version}`, 'm'));
    assert.match(r.stdout, /^capabilities: .*tools \(listChanged\)/m);
    assert.match(r.stdout, new RegExp(`^  ${INSTRUCTIONS}$`, 'm'));
  });

  test('a server that is not there: exit 1 and the client error in one line', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}/mcp`;
    const r = await runCli(['discover', nowhere, '--timeout', '5']);
    assert.equal(r.code, 1);
    assert.ok(r.stderr.startsWith(`janus-mcp: could not connect to ${nowhere}`), r.stderr);
  });
});

describe('list', () => {
  test('tools by default, as a table with the names and descriptions', async () => {
    const r = await runCli(['list', http]);
    assert.equal(r.code, 0, r.stderr);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    assert.match(header!, /^NAME +ARGUMENTS +DESCRIPTION$/);
    assert.ok(
      rows.some((row) => /^test_simple_text +Returns a simple text response$/.test(row)),
      r.stdout,
    );
    assert.ok(
      rows.some((row) => /^test_sampling +prompt +Asks the client to sample$/.test(row)),
      r.stdout,
    );
  });

  for (const [kind, key, sample] of [
    ['tools', 'tools', 'test_simple_text'],
    ['prompts', 'prompts', 'test_simple_prompt'],
    ['resources', 'resources', 'test://static-text'],
    ['templates', 'resourceTemplates', 'test://template/{id}/data'],
  ] as const) {
    test(`${kind} --json over stdio: the list result, every page`, async () => {
      const r = await runCli(['list', STDIO_TARGET, kind, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const listed = JSON.parse(r.stdout) as Record<string, Array<Record<string, unknown>>>;
      assert.deepEqual(Object.keys(listed), [key]);
      assert.ok(
        listed[key]!.some((item) => item.name === sample || item.uri === sample || item.uriTemplate === sample),
        r.stdout,
      );
    });
  }
});

describe('call', () => {
  test('text content printed as it is; exit 0', async () => {
    const r = await runCli(['call', http, 'test_simple_text']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${TEXT}\n`);
  });

  test('--json prints the raw CallToolResult', async () => {
    const r = await runCli(['call', STDIO_TARGET, 'test_image_content', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as { content: Array<{ type: string; mimeType: string }> };
    assert.equal(result.content[0]!.type, 'image');
    assert.equal(result.content[0]!.mimeType, 'image/png');
  });

  test('--arg values are JSON when they parse, strings otherwise, and merge over the JSON object', async () => {
    const r = await runCli([
      'call',
      http,
      'json_schema_2020_12_tool',
      '{"name":"from-json","contactMethod":"email"}',
      '--arg',
      'name=Ada',
      '--arg',
      'address={"city":"Oslo"}',
      '--arg',
      'email=ada@example.com',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Received: /);
    assert.deepEqual(JSON.parse(r.stdout.slice('Received: '.length)), {
      name: 'Ada',
      contactMethod: 'email',
      address: { city: 'Oslo' },
      email: 'ada@example.com',
    });
  });

  test('a tool error (isError): exit 1, its text on stderr; with --json the result on stdout', async () => {
    const r = await runCli(['call', http, 'test_error_handling']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /This tool intentionally returns an error for testing/);
    const json = await runCli(['call', http, 'test_error_handling', '--json']);
    assert.equal(json.code, 1);
    assert.equal((JSON.parse(json.stdout) as { isError: boolean }).isError, true);
  });

  test('a failed call (unknown tool): exit 1 and the server error', async () => {
    const r = await runCli(['call', STDIO_TARGET, 'no_such_tool']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^janus-mcp: .*no_such_tool/m);
  });

  test('progress notifications: one plain line each on stderr when it is not a terminal', async () => {
    const r = await runCli(['call', http, 'test_tool_with_progress']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Progress test completed\n');
    assert.match(r.stderr, /^progress 0\/100 step 0\nprogress 50\/100 step 50\nprogress 100\/100 step 100\n$/m);
  });

  test('elicitation without a terminal or answers is declined, saying how to answer', async () => {
    const r = await runCli(['call', STDIO_TARGET, 'test_elicitation', '--arg', 'message=Who are you?']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'User response: action=decline, content={}\n');
    assert.match(r.stderr, /the server asks "Who are you\?": declined \(stdin is not a terminal: give the answers with --answers FILE\)/);
  });

  test('--no-input declines', async () => {
    const r = await runCli(['call', http, 'test_elicitation', '--arg', 'message=hi', '--no-input']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'User response: action=decline, content={}\n');
    assert.match(r.stderr, /declined \(--no-input\)/);
  });

  test('--answers FILE with field values: accepted with the fields the request asks for, defaults filled', async () => {
    const file = join(scratch(), 'answers.json');
    writeFileSync(file, JSON.stringify({ name: 'Ada', verified: false, unrelated: 'dropped' }));
    for (const target of [http, STDIO_TARGET]) {
      const r = await runCli(['call', target, 'test_elicitation_sep1034_defaults', '--answers', file]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        'Elicitation completed: action=accept, content={"name":"Ada","verified":false,"age":30,"score":95.5,"status":"active"}\n',
      );
    }
  });

  test('--answers FILE with a list: one answer per request in order; a list that runs out cancels', async () => {
    const dir = scratch();
    const declines = join(dir, 'decline.json');
    writeFileSync(declines, JSON.stringify([{ action: 'decline' }]));
    const r = await runCli(['call', http, 'test_elicitation', '--arg', 'message=hi', '--answers', declines]);
    assert.equal(r.stdout, 'User response: action=decline, content={}\n');
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '[]');
    const cancelled = await runCli(['call', http, 'test_elicitation', '--arg', 'message=hi', '--answers', empty]);
    assert.equal(cancelled.stdout, 'User response: action=cancel, content={}\n');
    assert.match(cancelled.stderr, /has no answer left for "hi": cancelled/);
    const fields = join(dir, 'fields.json');
    writeFileSync(fields, JSON.stringify([{ username: 'ada', email: 'ada@example.com' }]));
    const accepted = await runCli(['call', STDIO_TARGET, 'test_elicitation', '--arg', 'message=hi', '--answers', fields]);
    assert.equal(accepted.stdout, 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}\n');
  });

  test('--answers FILE that is not JSON: a usage error', async () => {
    const file = join(scratch(), 'broken.json');
    writeFileSync(file, '{nope');
    const r = await runCli(['call', http, 'test_elicitation', '--arg', 'message=hi', '--answers', file]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^janus-mcp: --answers .*broken\.json: /);
  });

  test('--sampler CMD: the request JSON on its stdin, its stdout the reply text (both eras)', async () => {
    // The sampler echoes the prompt text it was given, read from the request JSON.
    const sampler = `${process.execPath} -e "let s='';process.stdin.on('data',c=>s+=c).on('end',()=>process.stdout.write('echo: '+JSON.parse(s).messages[0].content.text+'\\n'))"`;
    for (const target of [http, STDIO_TARGET]) {
      for (const version of ['2026-07-28', '2025-06-18']) {
        const r = await runCli([
          'call',
          target,
          'test_sampling',
          '--arg',
          'prompt=Say hi',
          '--sampler',
          sampler,
          '--protocol-version',
          version,
        ]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, 'LLM response: echo: Say hi\n', `${target} ${version}`);
      }
    }
  });

  test('--sampler CMD printing a CreateMessageResult as JSON: taken as the result', async () => {
    const result = JSON.stringify({ role: 'assistant', content: { type: 'text', text: 'from JSON' }, model: 'm' });
    const sampler = `${process.execPath} -e "process.stdin.resume();process.stdout.write(process.argv[1])" '${result}'`;
    const r = await runCli(['call', http, 'test_sampling', '--arg', 'prompt=x', '--sampler', sampler]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'LLM response: from JSON\n');
  });

  test('a --sampler that fails: the call fails with exit 1', async () => {
    const r = await runCli(['call', http, 'test_sampling', '--arg', 'prompt=x', '--sampler', 'exit 3']);
    assert.equal(r.code, 1);
  });
});
