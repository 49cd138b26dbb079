/**
 * The conformance client command: `npm run --silent fixture:client -- URL`, with the
 * scenario and protocol version in MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_PROTOCOL_VERSION
 * and scenario data in MCP_CONFORMANCE_CONTEXT (shared/conformance/README.md).
 */
import { connect, headlessRedirect, type Client, type ConnectOptions, type OAuthClientOptions } from '../../src/client/index.js';
import type { ProtocolVersion } from '../../src/protocol/index.js';
import { skillScenarios } from './skills.js';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const version = (process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25') as ProtocolVersion;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;

type Step = (client: Client) => Promise<void>;

const scenarios: Record<string, Step> = {
  initialize: async (c) => {
    await c.listTools();
  },
  tools_call: async (c) => {
    await c.listTools();
    await c.callTool('add_numbers', { a: 5, b: 3 });
  },
  'elicitation-sep1034-client-defaults': async (c) => {
    await c.listTools();
    await c.callTool('test_client_elicitation_defaults', {});
  },
  'sse-retry': async (c) => {
    await c.listTools();
    await c.callTool('test_reconnection', {});
  },
  'request-metadata': async (c) => {
    await c.listTools();
  },
  'http-standard-headers': async (c) => {
    await c.listTools();
    await c.callTool('test_headers', {});
    await c.listResources();
    await c.readResource('file:///path/to/file%20name.txt');
    await c.listPrompts();
    await c.getPrompt('test_prompt', {});
  },
  'http-custom-headers': async (c) => {
    await c.listTools();
    const calls = (context.toolCalls ?? []) as Array<{ name: string; arguments?: Record<string, unknown> }>;
    for (const call of calls) await c.callTool(call.name, call.arguments ?? {});
  },
  'http-invalid-tool-headers': async (c) => {
    const { tools } = await c.listTools();
    for (const tool of tools) await c.callTool(tool.name, {});
  },
  'sep-2322-client-request-state': async (c) => {
    await c.listTools();
    for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type']) {
      await c.callTool(name, {}).catch((e: unknown) => console.error(`${name}:`, e));
    }
  },
  'json-schema-ref-no-deref': async (c) => {
    await c.listTools();
  },
  'json-schema-2020-12-preservation': async (c) => {
    const { tools } = await c.listTools();
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    if (tool) await c.callTool('json_schema_echo', { schema: tool.inputSchema });
  },
  ...skillScenarios,
};

/** The auth scenarios' mock server offers one tool, `test-tool`: list it, then call it (a call may need a wider scope). */
const authorized: Step = async (c) => {
  await c.listTools();
  await c.callTool('test-tool', {});
};

/**
 * OAuth for every scenario (a server that never answers 401 never starts it): headless (the
 * mock authorization endpoint redirects at once), pre-registered credentials when the scenario
 * gives them, and the Client ID Metadata Document URL the referee expects.
 */
function oauth(): OAuthClientOptions {
  const clientId = typeof context.client_id === 'string' ? context.client_id : undefined;
  const clientSecret = typeof context.client_secret === 'string' ? context.client_secret : undefined;
  const text = (name: string) => String(context[name] ?? '');
  // The authorization extensions' scenarios: the grant is the application's choice, here by scenario.
  switch (scenario) {
    case 'auth/client-credentials-basic':
      return { grant: { type: 'client_credentials', clientId: text('client_id'), clientSecret: text('client_secret') } };
    case 'auth/client-credentials-jwt':
      return {
        grant: {
          type: 'client_credentials',
          clientId: text('client_id'),
          privateKey: text('private_key_pem'),
          signingAlgorithm: text('signing_algorithm') || 'ES256',
        },
      };
    case 'auth/wif-jwt-bearer':
      return { grant: { type: 'jwt_bearer', clientId: text('client_id'), assertion: text('valid_jwt') } };
    case 'auth/enterprise-managed-authorization':
      return {
        grant: {
          type: 'enterprise_managed',
          clientId: text('client_id'),
          clientSecret: text('client_secret'),
          idp: {
            tokenEndpoint: text('idp_token_endpoint'),
            issuer: text('idp_issuer'),
            clientId: text('idp_client_id'),
            idToken: text('idp_id_token'),
          },
        },
      };
  }
  return {
    ...(scenario === 'auth/dpop' || scenario === 'auth/dpop-nonce' ? { dpop: true } : {}),
    redirectUri: 'http://localhost:3000/callback',
    redirect: headlessRedirect(),
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    clientName: 'janus-conformance-client',
    ...(clientId ? { client: { clientId, clientSecret, issuer: typeof context.issuer === 'string' ? context.issuer : undefined } } : {}),
  };
}

async function main(): Promise<number> {
  if (!url) {
    console.error('usage: fixture:client URL');
    return 2;
  }
  const step = scenarios[scenario] ?? (scenario.startsWith('auth/') ? authorized : async (c: Client) => void (await c.listTools()));
  const options: ConnectOptions = {
    clientInfo: { name: 'janus-conformance-client', version: '0.1.0' },
    protocolVersion: version,
    onElicit: (params) => (params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: {} }),
    onSample: (params) => ({
      role: 'assistant',
      content: { type: 'text', text: `sampled: ${JSON.stringify(params.messages?.[0]?.content ?? '')}` },
      model: 'janus-test-model',
      stopReason: 'endTurn',
    }),
    onRoots: () => [{ uri: 'file:///conformance/root', name: 'Conformance Root' }],
    onWarning: (m: string) => console.error(m),
    auth: oauth(),
  } as ConnectOptions;
  const client = await connect(url, options);
  try {
    await step(client);
  } finally {
    await client.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
