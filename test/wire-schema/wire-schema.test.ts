import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { SCHEMA_DIR_ENV, createWireValidator, findRepoRoot, wireValidator } from '../support/wire-schema.js';
import { LEGACY_REVISIONS as LEGACY, MODERN } from '../support/common.js';

const meta2026 = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};

const tool = { name: 'echo', inputSchema: { type: 'object' } };

function listToolsResponse(result: Record<string, unknown>) {
  return { jsonrpc: '2.0', id: 7, result };
}

function hasErrorMatching(errors: string[], pattern: RegExp): boolean {
  return errors.some((e) => pattern.test(e));
}

function assertRejected(errors: string[], ...patterns: RegExp[]): void {
  assert.notDeepEqual(errors, [], 'expected validation errors, got none');
  for (const p of patterns) assert.ok(hasErrorMatching(errors, p), `no error matches ${p}:\n${errors.join('\n')}`);
}

// ---------------------------------------------------------------------------

test('a missing schema folder is an error naming it, never a silent skip (env override, in-process)', () => {
  const saved = process.env[SCHEMA_DIR_ENV];
  const missing = join(tmpdir(), `janus-mcp-no-such-schema-dir-${process.pid}`);
  process.env[SCHEMA_DIR_ENV] = missing;
  try {
    assert.throws(
      () => wireValidator(),
      (e: Error) => e.message.includes(missing) && /does not exist/.test(e.message),
    );
    assert.throws(() => createWireValidator({ schemaDir: missing }), /does not exist/);
    const empty = mkdtempSync(join(tmpdir(), 'janus-mcp-empty-schema-dir-'));
    try {
      assert.throws(() => createWireValidator({ schemaDir: empty }), /no <revision>\/schema\.json/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  } finally {
    if (saved === undefined) delete process.env[SCHEMA_DIR_ENV];
    else process.env[SCHEMA_DIR_ENV] = saved;
  }
  assert.notEqual(wireValidator().schemaDir, missing, 'restoring the env restores the normal validator');
});

test('the repository carries the official schema.json of all five revisions (spec/schema) and uses them by default', (t) => {
  const root = findRepoRoot();
  assert.ok(root !== undefined, 'package.json named janus-mcp above dist/test/support');
  assert.equal(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name, 'janus-mcp');
  const carried = join(root, 'spec', 'schema');
  assert.deepEqual(createWireValidator({ schemaDir: carried }).revisions, [...LEGACY, MODERN]);
  for (const rev of [...LEGACY, MODERN]) {
    const schema = JSON.parse(readFileSync(join(carried, rev, 'schema.json'), 'utf8')) as { $schema?: string };
    assert.match(schema.$schema ?? '', /json-schema\.org/, rev);
  }
  if (process.env[SCHEMA_DIR_ENV]) {
    t.diagnostic(`${SCHEMA_DIR_ENV} is set: the override is in use`);
    return;
  }
  assert.equal(wireValidator().schemaDir, resolve(carried));
});

test('method tables come from the schema unions', () => {
  const v = wireValidator();
  for (const rev of [...LEGACY, MODERN]) {
    if (!v.revisions.includes(rev)) continue;
    const m = v.methods(rev);
    assert.equal(m.clientRequests.get('tools/call'), 'CallToolRequest', rev);
    assert.equal(m.serverNotifications.get('notifications/progress'), 'ProgressNotification', rev);
  }
  const legacy = v.methods('2024-11-05');
  assert.equal(legacy.serverRequests.get('sampling/createMessage'), 'CreateMessageRequest');
  assert.equal(legacy.clientRequests.get('initialize'), 'InitializeRequest');
  assert.equal(legacy.serverRequests.has('elicitation/create'), false);
  assert.equal(v.methods('2025-06-18').serverRequests.get('elicitation/create'), 'ElicitRequest');
  assert.equal(v.methods('2025-03-26').batching, true);
  assert.equal(v.methods('2025-06-18').batching, false);

  const modern = v.methods(MODERN);
  assert.equal(modern.serverRequests.size, 0, '2026-07-28 servers never send requests');
  assert.equal(modern.clientRequests.get('server/discover'), 'DiscoverRequest');
  assert.equal(modern.clientRequests.has('initialize'), false);
  // 2026 collapses the one-member ClientNotification union inline; it is still found by method.
  assert.deepEqual([...modern.clientNotifications], [['notifications/cancelled', 'CancelledNotification']]);
  assert.equal(modern.allMethods.get('sampling/createMessage'), 'CreateMessageRequest');
});

test('method → result definition mapping', () => {
  const v = wireValidator();
  const primary = (rev: string, method: string, side: 'server' | 'client' = 'server') => v.resultDefinitions(rev, method, side)?.primary;
  assert.equal(primary('2024-11-05', 'initialize'), 'InitializeResult');
  assert.equal(primary('2024-11-05', 'ping'), 'EmptyResult');
  assert.equal(primary('2024-11-05', 'ping', 'client'), 'EmptyResult');
  assert.equal(primary('2024-11-05', 'logging/setLevel'), 'EmptyResult');
  assert.equal(primary('2024-11-05', 'sampling/createMessage', 'client'), 'CreateMessageResult');
  assert.equal(primary('2025-11-25', 'tasks/result'), 'GetTaskPayloadResult');
  assert.equal(primary(MODERN, 'server/discover'), 'DiscoverResult');
  assert.equal(primary(MODERN, 'subscriptions/listen'), 'SubscriptionsListenResult');
  assert.equal(primary(MODERN, 'completion/complete'), 'CompleteResult');
  assert.equal(primary(MODERN, 'resources/templates/list'), 'ListResourceTemplatesResult');
  assert.deepEqual(v.resultDefinitions(MODERN, 'tools/call', 'server')?.alternatives, ['CallToolResult', 'InputRequiredResult']);
  assert.deepEqual(v.resultDefinitions(MODERN, 'tools/list', 'server')?.alternatives, ['ListToolsResult']);
  assert.deepEqual(v.resultDefinitions('2025-11-25', 'tools/call', 'server')?.alternatives, ['CallToolResult', 'CreateTaskResult']);
  assert.equal(v.resultDefinitions(MODERN, 'ping', 'server'), undefined);
  assert.equal(v.resultDefinitions('2024-11-05', 'tools/call', 'client'), undefined);

  // Sanity: every mapped result is a member of the revision's ServerResult/ClientResult union
  // (or the generic Result it contains), except CreateTaskResult, which 2025-11-25 leaves out of ServerResult.
  for (const rev of v.revisions) {
    const schema = JSON.parse(readFileSync(join(v.schemaDir, rev, 'schema.json'), 'utf8'));
    const defs = schema.$defs ?? schema.definitions;
    const unionMembers = (name: string): string[] => {
      const d = defs[name];
      if (!d) return [];
      return (d.anyOf ?? [d]).map((m: { $ref?: string }) => m.$ref?.split('/').pop()).filter(Boolean);
    };
    for (const side of ['server', 'client'] as const) {
      const m = v.methods(rev);
      const union = unionMembers(side === 'server' ? 'ServerResult' : 'ClientResult');
      for (const method of (side === 'server' ? m.clientRequests : m.serverRequests).keys()) {
        const r = v.resultDefinitions(rev, method, side);
        assert.ok(r, `${rev} ${method}`);
        for (const alt of r.alternatives) {
          if (alt === 'CreateTaskResult' || alt === 'EmptyResult') continue;
          assert.ok(union.includes(alt), `${rev}: ${alt} (for ${method}) not in ${side === 'server' ? 'Server' : 'Client'}Result`);
        }
      }
    }
  }
});

// ---------------------------------------------------------------------------
// Official 2026-07-28 examples

/** Examples the default (discriminating) mode rejects although the schema's literal union accepts them. */
const STALE_EXAMPLES: Record<string, RegExp[]> = {
  // No ttlMs/cacheScope: valid only because the InputRequiredResult branch of
  // ReadResourceResultResponse requires nothing but resultType (the referee rejects it too).
  'ReadResourceResultResponse/read-resource-result-response.json': [
    /ReadResourceResult at \/result: must have required property 'ttlMs'/,
    /cacheScope/,
  ],
};

test('accepts every official 2026-07-28 example that is a full JSON-RPC message', async () => {
  const v = wireValidator();
  const dir = join(v.schemaDir, MODERN, 'examples');
  assert.ok(existsSync(dir), `the official examples are at ${dir}`);
  const m = v.methods(MODERN);
  const requestMethodOfType = (typeName: string): string => {
    const base = typeName.replace(/ResultResponse$/, '');
    const entry = [...m.clientRequests].find(([, def]) => def === `${base}Request`);
    assert.ok(entry, `no request definition for ${typeName}`);
    return entry[0];
  };

  let checked = 0;
  const kinds = new Set<string>();
  for (const type of readdirSync(dir).sort()) {
    for (const file of readdirSync(join(dir, type))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const name = `${type}/${file}`;
      const example = JSON.parse(readFileSync(join(dir, type, file), 'utf8')) as Record<string, unknown>;
      // Every example matches its own folder's definition.
      assert.deepEqual(v.checkDefinition(MODERN, type, example), [], name);
      if (example.jsonrpc !== '2.0') continue; // a fragment (params, result body, embedded InputRequest …)

      const checks: Array<[string, string[]]> = [];
      if (typeof example.method === 'string') {
        const method = example.method;
        const isRequest = 'id' in example;
        const client = isRequest ? m.clientRequests.has(method) : m.clientNotifications.has(method);
        const server = isRequest ? m.serverRequests.has(method) : m.serverNotifications.has(method);
        assert.ok(client || server, `${name}: ${method} in no union`);
        if (client) checks.push(['client', v.checkClientMessage(MODERN, example)]);
        if (server) checks.push(['server', v.checkServerMessage(MODERN, example)]);
        kinds.add(isRequest ? 'request' : 'notification');
      } else if ('result' in example) {
        const requestMethod = requestMethodOfType(type);
        const literal = v.checkServerMessage(MODERN, example, { requestMethod, literalResultUnions: true });
        assert.deepEqual(literal, [], `${name} (literal schema unions)`);
        const errors = v.checkServerMessage(MODERN, example, { requestMethod });
        const stale = STALE_EXAMPLES[name];
        if (stale) assertRejected(errors, ...stale);
        else checks.push(['server', errors]);
        kinds.add('result');
      } else {
        checks.push(['server', v.checkServerMessage(MODERN, example)]);
        kinds.add('error');
      }
      for (const [side, errors] of checks) assert.deepEqual(errors, [], `${name} as ${side} message`);
      checked++;
    }
  }
  assert.ok(checked >= 30, `only ${checked} full-message examples found`);
  assert.deepEqual([...kinds].sort(), ['error', 'notification', 'request', 'result']);
});

// ---------------------------------------------------------------------------
// Hand-made messages, 2026-07-28

test('2026-07-28: tools/list results', () => {
  const v = wireValidator();
  const opts = { requestMethod: 'tools/list' };
  const good = { resultType: 'complete', tools: [tool], ttlMs: 0, cacheScope: 'public' };
  assert.deepEqual(v.checkServerMessage(MODERN, listToolsResponse(good), opts), []);

  const { resultType: _rt, ...noResultType } = good;
  assertRejected(
    v.checkServerMessage(MODERN, listToolsResponse(noResultType), opts),
    /^\[2026-07-28\] ListToolsResult at \/result: must have required property 'resultType' \(result of "tools\/list"\)$/,
  );
  // The envelope alone (JSONRPCResultResponse → Result) already requires resultType in 2026.
  assertRejected(v.checkServerMessage(MODERN, listToolsResponse(noResultType)), /resultType/);

  const { ttlMs: _ttl, ...noTtl } = good;
  assertRejected(
    v.checkServerMessage(MODERN, listToolsResponse(noTtl), opts),
    /ListToolsResult at \/result: must have required property 'ttlMs'/,
  );
  assertRejected(
    v.checkServerMessage(MODERN, listToolsResponse({ ...good, cacheScope: 'shared' }), opts),
    /ListToolsResult at \/result\/cacheScope: must be equal to one of the allowed values \(allowed: \["private","public"\]\)/,
  );
  assertRejected(v.checkServerMessage(MODERN, listToolsResponse({ ...good, ttlMs: -1 }), opts), /\/result\/ttlMs: must be >= 0/);

  // No additionalProperties-style strictness: extra members are fine where the schema allows them.
  assert.deepEqual(
    v.checkServerMessage(
      MODERN,
      { ...listToolsResponse({ ...good, extra: 1, tools: [{ ...tool, vendorField: true }] }), extraEnvelope: 'x' },
      opts,
    ),
    [],
  );
  // input_required is not a valid tools/list result.
  assertRejected(
    v.checkServerMessage(MODERN, listToolsResponse({ resultType: 'input_required', requestState: 'abc' }), opts),
    /resultType "input_required" is not allowed for "tools\/list" \(only resources\/read, prompts\/get, tools\/call\)/,
  );
});

test('2026-07-28: InputRequiredResult for tools/call, prompts/get, resources/read', () => {
  const v = wireValidator();
  const inputRequired = { resultType: 'input_required', requestState: 'opaque' };
  for (const requestMethod of ['tools/call', 'prompts/get', 'resources/read']) {
    assert.deepEqual(
      v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 'a', result: inputRequired }, { requestMethod }),
      [],
      requestMethod,
    );
  }
  const badInput = { resultType: 'input_required', inputRequests: { x: { method: 'roots/list', params: 5 } } };
  assertRejected(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, result: badInput }, { requestMethod: 'tools/call' }),
    /InputRequiredResult at \/result\/inputRequests\/x/,
  );

  // A "complete" tools/call result must be a CallToolResult (the referee's reading) …
  const hollow = { jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } };
  assertRejected(
    v.checkServerMessage(MODERN, hollow, { requestMethod: 'tools/call' }),
    /CallToolResult at \/result: must have required property 'content'/,
  );
  // … although the schema's own union (CallToolResultResponse) accepts it via InputRequiredResult.
  assert.deepEqual(v.checkServerMessage(MODERN, hollow, { requestMethod: 'tools/call', literalResultUnions: true }), []);
  // Extension result type "task": checked against the tasks extension's own schema (spec/extensions/tasks).
  const task = { resultType: 'task', taskId: 't', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttlMs: 1000 };
  assert.deepEqual(v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, result: task }, { requestMethod: 'tools/call' }), []);
  const { ttlMs: _, ...noTtl } = task;
  assert.match(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, result: noTtl }, { requestMethod: 'tools/call' }).join('\n'),
    /CreateTaskResult at \/result: must have required property 'ttlMs'/,
  );
});

test('union errors are narrowed to the member the data names', () => {
  const v = wireValidator();
  const call = (content: unknown) => ({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content } });
  assert.deepEqual(v.checkServerMessage(MODERN, call([{ type: 'text' }]), { requestMethod: 'tools/call' }), [
    `[2026-07-28] CallToolResult at /result/content/0: must have required property 'text' (as TextContent) (result of "tools/call")`,
  ]);
  assertRejected(
    v.checkServerMessage(MODERN, call([{ type: 'text', text: 'ok' }, { type: 'bogus' }]), { requestMethod: 'tools/call' }),
    /^\[2026-07-28\] CallToolResult at \/result\/content\/1: matches no member of TextContent \| ImageContent .*: type "bogus" is not one of \["text","image","audio","resource_link","resource"\]/,
  );
  // Nested unions (SamplingMessage.content → SamplingMessageContentBlock → TextContent).
  assert.deepEqual(
    v.checkServerMessage('2025-11-25', {
      jsonrpc: '2.0',
      id: 1,
      method: 'sampling/createMessage',
      params: { maxTokens: 5, messages: [{ role: 'user', content: { type: 'text' } }] },
    }),
    [`[2025-11-25] CreateMessageRequest at /params/messages/0/content: must have required property 'text' (as TextContent)`],
  );
  // format "uri" needs a scheme (a light version of the referee's ajv-formats check).
  const link = (uri: string) => call([{ type: 'resource_link', uri, name: 'main.rs' }]);
  assert.deepEqual(v.checkServerMessage(MODERN, link('file:///project/src/main.rs'), { requestMethod: 'tools/call' }), []);
  assertRejected(
    v.checkServerMessage(MODERN, link('src/main.rs'), { requestMethod: 'tools/call' }),
    /\/result\/content\/0\/uri: must match format "uri" \(as ResourceLink\)/,
  );
  const inputRequired = {
    resultType: 'input_required',
    inputRequests: { a: { method: 'elicitation/create', params: { mode: 'form', message: 'm' } } },
  };
  assert.deepEqual(v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, result: inputRequired }, { requestMethod: 'prompts/get' }), [
    `[2026-07-28] InputRequiredResult at /result/inputRequests/a/params: must have required property 'requestedSchema' (as ElicitRequestFormParams) (result of "prompts/get")`,
  ]);
});

test('2026-07-28: methods the revision does not define, or not in that direction', () => {
  const v = wireValidator();
  assertRejected(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } }),
    /method sampling\/createMessage is not a server request in 2026-07-28 .*2026-07-28 defines no server-to-client requests/,
  );
  assertRejected(
    v.checkClientMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    /method initialize is not a client request in 2026-07-28 \(not defined in this revision\)/,
  );
  assertRejected(v.checkClientMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'ping' }), /method ping is not a client request/);
  assertRejected(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'e' } }),
    /not a server notification in 2026-07-28/,
  );
  assertRejected(v.checkClientMessage(MODERN, { jsonrpc: '2.0', method: 'notifications/initialized' }), /not a client notification/);
  assertRejected(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta2026 } }),
    /not a server request in 2026-07-28 \(it is a client request/,
  );
  assertRejected(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }, { requestMethod: 'ping' }),
    /"ping" is not a client request in 2026-07-28/,
  );
  // Clients never send responses in 2026.
  assertRejected(
    v.checkClientMessage(MODERN, { jsonrpc: '2.0', id: 1, result: { roots: [] } }, { requestMethod: 'roots/list' }),
    /defines no server-to-client requests/,
  );
  assertRejected(
    v.checkClientMessage(MODERN, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } }),
    /defines no server-to-client requests/,
  );
});

test('2026-07-28: client requests need _meta; errors by code', () => {
  const v = wireValidator();
  assert.deepEqual(v.checkClientMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta2026 } }), []);
  assertRejected(
    v.checkClientMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    /ListToolsRequest at \(root\): must have required property 'params'/,
  );
  assertRejected(
    v.checkClientMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: {} } }),
    /DiscoverRequest at \/params\/_meta: must have required property 'io.modelcontextprotocol\/protocolVersion'/,
  );
  assertRejected(
    v.checkClientMessage(MODERN, { jsonrpc: '1.0', id: 1, method: 'tools/list', params: { _meta: meta2026 } }),
    /at \/jsonrpc: must be equal to constant \(allowed: "2.0"\)/,
  );

  const unsupported = {
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN], requested: '1999-01-01' } },
  };
  assert.deepEqual(v.checkServerMessage(MODERN, unsupported), []);
  assertRejected(
    v.checkServerMessage(MODERN, { ...unsupported, error: { code: -32022, message: 'x' } }),
    /UnsupportedProtocolVersionError at \/error: must have required property 'data'/,
  );
  assertRejected(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'x', data: {} } }),
    /MissingRequiredClientCapabilityError at \/error\/data: must have required property 'requiredCapabilities'/,
  );
  assert.deepEqual(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }),
    [],
    'id optional in 2026',
  );
  assertRejected(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, error: { code: 'bad', message: 'x' } }),
    /at \/error\/code: must be integer/,
  );
  assertRejected(
    v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1, result: { resultType: 'complete' }, error: { code: 1, message: 'x' } }),
    /both "result" and "error"/,
  );
  assertRejected(v.checkServerMessage(MODERN, { jsonrpc: '2.0', id: 1 }), /not a JSON-RPC request, notification or response/);
  assertRejected(v.checkServerMessage(MODERN, 'hello'), /expected an object, got string/);
  assertRejected(
    v.checkServerMessage(MODERN, [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }]),
    /batches \(arrays\) are not part of 2026-07-28/,
  );
});

// ---------------------------------------------------------------------------
// Legacy revisions

const initializeResult = (rev: string) => ({
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: rev, capabilities: {}, serverInfo: { name: 'janus', version: '0.1.0' } },
});

test('legacy: a minimal initialize result passes in every legacy revision', () => {
  const v = wireValidator();
  for (const rev of LEGACY) {
    assert.deepEqual(v.checkServerMessage(rev, initializeResult(rev), { requestMethod: 'initialize' }), [], rev);
    const { serverInfo: _si, ...noInfo } = initializeResult(rev).result;
    assertRejected(
      v.checkServerMessage(rev, { jsonrpc: '2.0', id: 0, result: noInfo }, { requestMethod: 'initialize' }),
      new RegExp(`^\\[${rev}\\] InitializeResult at /result: must have required property 'serverInfo'`),
    );
    assert.deepEqual(v.checkServerMessage(rev, { jsonrpc: '2.0', id: 3, result: {} }, { requestMethod: 'ping' }), [], `${rev} ping`);
    assert.deepEqual(
      v.checkClientMessage(rev, { jsonrpc: '2.0', id: 3, result: {} }, { requestMethod: 'ping' }),
      [],
      `${rev} ping (client)`,
    );
    assert.deepEqual(
      v.checkClientMessage(rev, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: rev, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
      [],
      `${rev} initialize request`,
    );
    assert.deepEqual(v.checkClientMessage(rev, { jsonrpc: '2.0', method: 'notifications/initialized' }), [], `${rev} initialized`);
    assert.deepEqual(v.checkServerMessage(rev, { jsonrpc: '2.0', id: 9, method: 'ping' }), [], `${rev} server ping`);
    // The modern-only result shape is not required (no resultType) …
    assert.deepEqual(
      v.checkServerMessage(rev, { jsonrpc: '2.0', id: 2, result: { tools: [tool] } }, { requestMethod: 'tools/list' }),
      [],
      `${rev} tools/list`,
    );
    // … and a legacy tools/call result still needs content.
    assertRejected(
      v.checkServerMessage(rev, { jsonrpc: '2.0', id: 2, result: {} }, { requestMethod: 'tools/call' }),
      /CallToolResult at \/result: must have required property 'content'/,
    );
  }
});

test('legacy: 2026-only and later methods are rejected', () => {
  const v = wireValidator();
  const rev = '2025-11-25';
  assertRejected(
    v.checkClientMessage(rev, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta2026 } }),
    /method server\/discover is not a client request in 2025-11-25 \(not defined in this revision\)/,
  );
  assertRejected(
    v.checkClientMessage(rev, { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: {} } }),
    /not a client request in 2025-11-25/,
  );
  assertRejected(
    v.checkServerMessage(rev, { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: {} } }),
    /not a server notification in 2025-11-25/,
  );
  assertRejected(
    v.checkServerMessage(rev, { jsonrpc: '2.0', id: 1, result: { supportedVersions: [] } }, { requestMethod: 'server/discover' }),
    /"server\/discover" is not a client request in 2025-11-25/,
  );
  assertRejected(
    v.checkServerMessage('2024-11-05', {
      jsonrpc: '2.0',
      id: 1,
      method: 'elicitation/create',
      params: { message: 'm', requestedSchema: { type: 'object', properties: {} } },
    }),
    /method elicitation\/create is not a server request in 2024-11-05 \(not defined in this revision\)/,
  );
  assert.deepEqual(
    v.checkServerMessage('2025-06-18', {
      jsonrpc: '2.0',
      id: 1,
      method: 'elicitation/create',
      params: { message: 'm', requestedSchema: { type: 'object', properties: {} } },
    }),
    [],
  );
  assertRejected(
    v.checkServerMessage('2025-06-18', { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'e' } }),
    /not a server notification in 2025-06-18/,
  );
  assertRejected(
    v.checkClientMessage('2024-11-05', { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: {} }),
    /not a client request in 2024-11-05 \(it is a server request\)/,
  );
});

test('legacy: error responses and id', () => {
  const v = wireValidator();
  const noId = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } };
  for (const rev of ['2024-11-05', '2025-03-26', '2025-06-18']) {
    assertRejected(
      v.checkServerMessage(rev, noId),
      new RegExp(`^\\[${rev}\\] JSONRPCError at \\(root\\): must have required property 'id'$`),
    );
    assert.deepEqual(v.checkServerMessage(rev, { ...noId, id: 1 }), [], rev);
    assert.deepEqual(v.checkClientMessage(rev, { ...noId, id: 1 }), [], `${rev} client error response`);
  }
  assert.deepEqual(v.checkServerMessage('2025-11-25', noId), [], '2025-11-25 makes id optional');
  assertRejected(v.checkServerMessage('2024-11-05', { ...noId, id: null }), /JSONRPCError at \/id: must be string/);
  // 2025-11-25 URL elicitation error needs data.elicitations
  assertRejected(
    v.checkServerMessage('2025-11-25', { jsonrpc: '2.0', id: 1, error: { code: -32042, message: 'URL elicitation required' } }),
    /URLElicitationRequiredError at \/error: must have required property 'data'/,
  );
});

test('legacy: 2025-11-25 tasks and 2025-03-26 batches', () => {
  const v = wireValidator();
  const task = { taskId: 't1', status: 'working', createdAt: '2025-11-25T00:00:00Z', lastUpdatedAt: '2025-11-25T00:00:00Z', ttl: null };
  assert.deepEqual(v.checkServerMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: { task } }, { requestMethod: 'tools/call' }), []);
  assertRejected(
    v.checkServerMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: { task: { taskId: 't1' } } }, { requestMethod: 'tools/call' }),
    /CreateTaskResult at \/result\/task: must have required property 'status'/,
  );
  assert.deepEqual(
    v.checkClientMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: { task } }, { requestMethod: 'sampling/createMessage' }),
    [],
  );

  const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
  const listChanged = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
  assert.deepEqual(v.checkServerMessage('2025-03-26', [progress, listChanged]), []);
  assertRejected(v.checkServerMessage('2025-06-18', [progress, listChanged]), /batches \(arrays\) are not part of 2025-06-18/);
  assertRejected(
    v.checkServerMessage('2025-03-26', [progress, { jsonrpc: '2.0', method: 'tools/list', id: 4 }]),
    /^\[1\] \[2025-03-26\] method tools\/list is not a server request/,
  );
  const methods: Record<string, string> = { '1': 'tools/list', '2': 'ping' };
  const responses = [
    { jsonrpc: '2.0', id: 1, result: { tools: [] } },
    { jsonrpc: '2.0', id: 2, result: {} },
  ];
  assert.deepEqual(v.checkServerMessage('2025-03-26', responses, { requestMethod: (id) => methods[String(id)] }), []);
  assertRejected(
    v.checkServerMessage('2025-03-26', [{ jsonrpc: '2.0', id: 1, result: {} }], { requestMethod: (id) => methods[String(id)] }),
    /^\[0\] \[2025-03-26\] ListToolsResult at \/result: must have required property 'tools'/,
  );
  assertRejected(
    v.checkServerMessage('2025-03-26', [progress, responses[1]]),
    /a batch must contain only requests\/notifications or only responses/,
  );
});

// ---------------------------------------------------------------------------
// API behaviour

test('assert* throws a readable AssertionError', () => {
  const v = wireValidator();
  const big = {
    resultType: 'complete',
    tools: Array.from({ length: 50 }, (_, i) => ({ ...tool, name: `tool_${i}` })),
    cacheScope: 'public',
  };
  assert.doesNotThrow(() => v.assertServerMessage(MODERN, listToolsResponse({ ...big, ttlMs: 5 }), { requestMethod: 'tools/list' }));
  assert.throws(
    () => v.assertServerMessage(MODERN, listToolsResponse(big), { requestMethod: 'tools/list' }),
    (err: unknown) => {
      assert.ok(err instanceof assert.AssertionError);
      assert.match(err.message, /^server message is not valid per MCP 2026-07-28 schema\.json \(1 error\(s\)\):/);
      assert.match(err.message, /- \[2026-07-28\] ListToolsResult at \/result: must have required property 'ttlMs'/);
      assert.match(err.message, /message: \{"jsonrpc":"2\.0","id":7,"result":\{"resultType":"complete".*… \(\d+ more chars\)$/);
      return true;
    },
  );
  assert.throws(
    () => v.assertClientMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'ping' }),
    /method ping is not a client request in 2026-07-28/,
  );
});

test('unknown revision is reported, compilation is lazy and cached', () => {
  const v = wireValidator();
  assertRejected(v.checkServerMessage('1999-01-01', {}), /no MCP schema for revision "1999-01-01"/);
  assert.strictEqual(wireValidator(), v, 'singleton');

  const fresh = createWireValidator({ schemaDir: v.schemaDir });
  assert.deepEqual(fresh.compiledDefinitions(MODERN), []);
  fresh.checkServerMessage(MODERN, listToolsResponse({ resultType: 'complete', tools: [], ttlMs: 1, cacheScope: 'private' }), {
    requestMethod: 'tools/list',
  });
  assert.deepEqual(fresh.compiledDefinitions(MODERN), ['JSONRPCResultResponse', 'ListToolsResult']);
  assert.deepEqual(fresh.compiledDefinitions('2024-11-05'), [], 'other revisions untouched');
  fresh.checkServerMessage(MODERN, listToolsResponse({ resultType: 'complete', tools: [] }), { requestMethod: 'tools/list' });
  assert.deepEqual(fresh.compiledDefinitions(MODERN), ['JSONRPCResultResponse', 'ListToolsResult']);
});
