/**
 * A third-party extension, written as a user would: only public entries (`janus-mcp/server`,
 * `janus-mcp/spi`, `janus-mcp/errors`, `janus-mcp/testing`, `janus-mcp/client`; here their files
 * under src/, which the test checks). It adds a method, a capability and a per-request hook,
 * and each works in both eras: on a 2025-11-25 session and on 2026-07-28 requests.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { ErrorCode, McpError } from '../../src/errors/index.js';
import { createServer } from '../../src/server/index.js';
import { revision, type ServerExtension } from '../../src/spi/index.js';
import { createMemoryPair } from '../../src/testing/index.js';

const ID = 'com.acme/audit';

/** Counts the requests its server answers, by method, and serves the count. */
function audit(): ServerExtension & { readonly seen: Map<string, number> } {
  const seen = new Map<string, number>();
  return {
    id: ID,
    seen,
    // 2026-07-28: advertised under capabilities.extensions.
    settings: () => ({ counts: true }),
    // The handshake era has no capabilities.extensions: there it declares itself under experimental.
    capabilities: (v, caps) => {
      if (!revision(v).capabilities.server.has('extensions')) caps.experimental = { ...caps.experimental, [ID]: { counts: true } };
    },
    methods: {
      'acme/audit/count': {
        revisions: () => true,
        run: (params) => {
          if (typeof params.method !== 'string') throw new McpError(ErrorCode.InvalidParams, 'method must be a string');
          return { method: params.method, count: seen.get(params.method) ?? 0 };
        },
      },
    },
    // The per-request hook: a middleware around every request the server answers.
    middleware: (ctx, next) => {
      if (ctx.kind === 'request') seen.set(ctx.method, (seen.get(ctx.method) ?? 0) + 1);
      return next();
    },
  };
}

test('the test imports public entries only', () => {
  const source = readFileSync(fileURLToPath(import.meta.url).replace(/\/dist\/(test\/.*)\.js$/, '/$1.ts'), 'utf8');
  const imports = [...source.matchAll(/from '(\.\.\/\.\.\/src\/[^']+)'/g)].map((m) => m[1]);
  assert.ok(imports.length > 0);
  for (const path of imports) assert.match(path!, /^\.\.\/\.\.\/src\/(server|spi|errors|testing|client)\/index\.js$/, path);
});

for (const era of ['legacy', 'modern'] as const) {
  test(`${era} era: the capability is declared, the method answers, and the hook sees every request`, async () => {
    const extension = audit();
    const server = createServer({ name: 'audited', version: '1.0.0', extensions: [extension] });
    server.tool('hello', () => 'hi');
    const [clientSide, serverSide] = createMemoryPair();
    const connection = await server.connect(serverSide);
    const client = await connect(clientSide, era === 'legacy' ? { protocolVersion: '2025-11-25' } : {});
    try {
      assert.equal(client.era, era);
      const caps = client.serverCapabilities;
      if (era === 'modern') assert.deepEqual(caps.extensions?.[ID], { counts: true });
      else assert.deepEqual(caps.experimental?.[ID], { counts: true });

      await client.callTool('hello');
      await client.callTool('hello');
      const counted = await client.request('acme/audit/count', { method: 'tools/call' });
      assert.deepEqual({ method: counted.method, count: counted.count }, { method: 'tools/call', count: 2 });
      assert.equal(extension.seen.get('acme/audit/count'), 1, 'the hook saw the extension’s own method too');
      await assert.rejects(client.request('acme/audit/count', {}), (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
    } finally {
      await client.close();
      await connection.close();
      server.close();
    }
  });
}
