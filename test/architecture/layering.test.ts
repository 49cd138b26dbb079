/**
 * The layers of docs/architecture.md hold in the imports of src/: data flows down (transports, JSON-RPC
 * peer and protocol tables, era dispatch, features, client) and no layer reaches into another's
 * internals. Every import counts, type-only and dynamic ones included.
 *
 * KNOWN_VIOLATIONS lists what breaks a rule today, exactly: a new violation fails, and so does a
 * listed one that is gone (delete its line), so the list only shrinks.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { findRepoRoot } from '../support/wire-schema.js';
import { cycles, importGraph, scanImports, type Edge, type Graph } from './imports.js';

interface Rule {
  /** Named in each violation; keep it stable, KNOWN_VIOLATIONS quotes it. */
  readonly name: string;
  /** Why, for the failure message. */
  readonly why: string;
  readonly applies: (from: string) => boolean;
  readonly forbidden: (edge: Edge) => boolean;
}

const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`);

/** The entry points src/otel may build on (besides @opentelemetry/api). */
const OTEL_MAY_IMPORT = new Set([
  'src/server/index.ts',
  'src/client/index.ts',
  'src/protocol/index.ts',
  'src/errors/index.ts',
  'src/spi/index.ts',
]);
/** The entry points src/auth/server may build on (besides jose and oauth4webapi). */
const AUTH_SERVER_MAY_IMPORT = new Set(['src/server/index.ts', 'src/protocol/index.ts', 'src/errors/index.ts']);
/** The entry points src/auth/client may build on (besides jose and oauth4webapi). */
const AUTH_CLIENT_MAY_IMPORT = new Set(['src/protocol/index.ts', 'src/errors/index.ts']);
/** The OAuth and JOSE libraries: only src/auth loads them, and only when authorization is configured. */
const isOAuthLibrary = (e: Edge) => e.external && (e.to === 'jose' || e.to.startsWith('jose/') || e.to === 'oauth4webapi');
/** The entry points src/redis may build on (besides `redis`). */
const REDIS_MAY_IMPORT = new Set([
  'src/server/index.ts',
  'src/protocol/index.ts',
  'src/errors/index.ts',
  'src/spi/index.ts',
  'src/extensions/tasks/index.ts',
]);

/** The entry points src/cli may build on (besides node: built-ins): the command is a thin layer over the public API. */
const CLI_MAY_IMPORT = new Set([
  'src/client/index.ts',
  'src/server/index.ts',
  'src/stdio/index.ts',
  'src/transports/http/index.ts',
  'src/protocol/index.ts',
  'src/errors/index.ts',
  'src/proxy/index.ts',
]);
/** The entry points src/proxy may build on (besides node: built-ins): a Janus client upstream, a Janus server downstream. */
const PROXY_MAY_IMPORT = new Set(['src/server/index.ts', 'src/client/index.ts', 'src/protocol/index.ts', 'src/errors/index.ts']);
/** Files whose `import()` of a run-time path is their purpose: the command loads the user's server module. */
const COMPUTED_IMPORTS_ALLOWED = new Set(['src/cli/load.ts']);

/** A path inside one of the handshake era's folders (`<layer>/legacy/`). */
const inLegacy = (file: string) => /\/legacy\//.test(file);
/**
 * The file of each layer that registers the handshake era, the one file outside its legacy/
 * folders that may import one (`npm run build:modern-only` swaps each for its `.modern-only.ts`
 * twin and leaves every legacy/ folder out).
 */
export const ERA_REGISTRARS: readonly string[] = [
  'src/server/eras.ts',
  'src/transports/http/eras.ts',
  'src/client/eras.ts',
  'src/extensions/tasks/eras.ts',
  'src/redis/eras.ts',
];

const RULES: readonly Rule[] = [
  {
    name: 'core imports an extension',
    why: 'the server knows no extension by name: extensions plug into src/server/extension.ts, and come in through their own package subpaths',
    applies: under('src/server'),
    forbidden: (e) => under('src/extensions')(e.to),
  },
  {
    name: 'extension wire part imports server code',
    why: 'an extension’s wire part (wire.ts, methods.ts) is protocol level, shared with the client: it imports no server code',
    applies: (from) => under('src/extensions')(from) && /\/(wire|methods)\.ts$/.test(from),
    forbidden: (e) => under('src/server')(e.to) || under('src/spi')(e.to),
  },
  {
    name: 'handshake era reached outside its registrar',
    why: 'the handshake era is one removable unit per layer: outside the legacy/ folders only each layer’s eras.ts names it, so that a build without those folders still serves 2026-07-28',
    applies: (from) => !inLegacy(from) && !ERA_REGISTRARS.includes(from),
    forbidden: (e) => !e.external && inLegacy(e.to),
  },
  {
    name: 'modern imports legacy',
    why: 'removing the handshake era must be deleting one folder, src/server/legacy: the stateless era cannot depend on it',
    applies: under('src/server/modern'),
    forbidden: (e) => under('src/server/legacy')(e.to),
  },
  {
    name: 'protocol imports outside protocol',
    why: 'the revision tables and wire types are the bottom layer: they import nothing else, packages included',
    applies: under('src/protocol'),
    forbidden: (e) => !under('src/protocol')(e.to),
  },
  {
    name: 'jsonrpc imports beyond protocol',
    why: 'the JSON-RPC peer sits on the protocol tables only; sessions, the client and channels use it, not the reverse',
    applies: under('src/jsonrpc'),
    forbidden: (e) => !under('src/jsonrpc')(e.to) && !under('src/protocol')(e.to),
  },
  {
    name: 'features import an era',
    why: 'a feature definition is era-neutral; each era shapes its own wire result',
    applies: under('src/server/features'),
    forbidden: (e) => under('src/server/legacy')(e.to) || under('src/server/modern')(e.to),
  },
  {
    name: 'client imports server code',
    why: 'the client is the server’s peer, not a layer above it: it shares the protocol (and extensions’ wire parts), never server code',
    applies: under('src/client'),
    forbidden: (e) => under('src/server')(e.to) || under('src/spi')(e.to),
  },
  {
    name: 'transports import server internals',
    why: 'a transport knows no MCP method names; it reaches the server through its public entries (src/server/index.ts, src/spi/index.ts), and a transport’s handshake-era half through that era’s own face (src/server/legacy/index.ts)',
    applies: under('src/transports'),
    forbidden: (e) =>
      under('src/server')(e.to) && e.to !== 'src/server/index.ts' && !(inLegacy(e.from) && e.to === 'src/server/legacy/index.ts'),
  },
  {
    name: 'otel imports beyond the public entries',
    why: 'janus-mcp/otel is built on the public API: @opentelemetry/api and the server, client and protocol entry points, nothing else',
    applies: under('src/otel'),
    forbidden: (e) => (e.external ? e.to !== '@opentelemetry/api' : !under('src/otel')(e.to) && !OTEL_MAY_IMPORT.has(e.to)),
  },
  {
    name: 'OpenTelemetry reached outside otel',
    why: '@opentelemetry/api is an optional peer dependency: only janus-mcp/otel loads it, and nothing else in src/ loads janus-mcp/otel',
    applies: (from) => !under('src/otel')(from),
    forbidden: (e) => under('src/otel')(e.to) || e.to.startsWith('@opentelemetry/'),
  },
  {
    name: 'redis imports beyond the public entries',
    // Its handshake-era stores (src/redis/legacy) implement that era's store interfaces (janus-mcp/spi/legacy).
    why: 'janus-mcp/redis is built on the public API: `redis` and the server and protocol entry points, nothing else',
    applies: under('src/redis'),
    forbidden: (e) =>
      e.external
        ? e.to !== 'redis'
        : !under('src/redis')(e.to) && !REDIS_MAY_IMPORT.has(e.to) && !(inLegacy(e.from) && e.to === 'src/server/legacy/spi.ts'),
  },
  {
    name: 'Redis reached outside redis',
    why: '`redis` is an optional peer dependency: only janus-mcp/redis loads it, and nothing else in src/ loads janus-mcp/redis',
    applies: (from) => !under('src/redis')(from),
    forbidden: (e) => under('src/redis')(e.to) || e.to === 'redis' || e.to.startsWith('redis/') || e.to.startsWith('@redis/'),
  },
  {
    name: 'OAuth libraries reached outside auth',
    why: 'jose and oauth4webapi are loaded by src/auth only, lazily, so that programs without authorization never load them',
    applies: (from) => !under('src/auth')(from),
    forbidden: isOAuthLibrary,
  },
  {
    name: 'auth server imports beyond the public entries',
    why: 'the resource server is built on the public server and protocol entries, jose and oauth4webapi',
    applies: under('src/auth/server'),
    forbidden: (e) => (e.external ? !isOAuthLibrary(e) : !under('src/auth/server')(e.to) && !AUTH_SERVER_MAY_IMPORT.has(e.to)),
  },
  {
    name: 'auth client imports beyond the public entries',
    why: 'the OAuth client is a fetch wrapper built on the protocol entry, jose and oauth4webapi (node: modules by import() only: janus-mcp/client runs beyond Node); the client reaches it, not the reverse',
    applies: under('src/auth/client'),
    forbidden: (e) =>
      e.external
        ? !isOAuthLibrary(e) && !(e.to.startsWith('node:') && e.kind === 'dynamic')
        : !under('src/auth/client')(e.to) && !AUTH_CLIENT_MAY_IMPORT.has(e.to),
  },
  {
    name: 'client imports auth internals',
    why: 'the client reaches the OAuth client through src/auth/client/index.ts, which loads no OAuth library',
    applies: under('src/client'),
    forbidden: (e) => under('src/auth')(e.to) && e.to !== 'src/auth/client/index.ts',
  },
  {
    name: 'transports import auth internals',
    why: 'the HTTP transport reaches the resource server through src/auth/server/index.ts, which loads no OAuth library',
    applies: under('src/transports'),
    forbidden: (e) => under('src/auth')(e.to) && e.to !== 'src/auth/server/index.ts',
  },
  {
    name: 'cli imports beyond the public entries',
    why: 'the janus-mcp command is a thin layer over the public API, so it can do nothing a user program cannot: the client, server, stdio, http, protocol and proxy entry points and node: built-ins',
    applies: under('src/cli'),
    forbidden: (e) => (e.external ? !e.to.startsWith('node:') : !under('src/cli')(e.to) && !CLI_MAY_IMPORT.has(e.to)),
  },
  {
    name: 'cli reached from the library',
    why: 'the command is the top layer: nothing in the library imports it',
    applies: (from) => !under('src/cli')(from),
    forbidden: (e) => under('src/cli')(e.to),
  },
  {
    name: 'proxy imports beyond the public entries',
    why: 'janus-mcp/proxy is a Janus client upstream and a Janus server downstream, built on their public API, so what it needs goes into that API first: the server, client and protocol entry points and node: built-ins',
    applies: under('src/proxy'),
    forbidden: (e) => (e.external ? !e.to.startsWith('node:') : !under('src/proxy')(e.to) && !PROXY_MAY_IMPORT.has(e.to)),
  },
  {
    name: 'proxy reached from the library',
    why: 'the proxy sits on top of the client and the server: only the command (src/cli) builds on it',
    applies: (from) => !under('src/proxy')(from) && !under('src/cli')(from),
    forbidden: (e) => under('src/proxy')(e.to),
  },
];

/**
 * Today's violations, exactly (`<rule>: <from> → <to>`, `cycle: a → b → a`). Fix one, then delete
 * its line; never add one to make a new import pass.
 */
const KNOWN_VIOLATIONS: readonly string[] = [];

/** The violations of `RULES` and every import cycle among the internal edges, as stable strings. */
function violations(edges: readonly Edge[]): string[] {
  const found = new Set<string>();
  for (const e of edges) {
    for (const rule of RULES) if (rule.applies(e.from) && rule.forbidden(e)) found.add(`${rule.name}: ${e.from} → ${e.to}`);
  }
  for (const chain of cycles(edges)) found.add(`cycle: ${chain.join(' → ')}`);
  return [...found].sort();
}

/** Where each import of a violation's chain is written: `src/a.ts:12 (type)`. */
function where(edges: readonly Edge[], violation: string): string {
  const chain = violation.slice(violation.indexOf(': ') + 2).split(' → ');
  const lines = chain
    .slice(1)
    .flatMap((to, i) => edges.filter((e) => e.from === chain[i] && e.to === to).map((e) => `${e.from}:${e.line} (${e.kind})`));
  return `  at ${lines.join(', ')}`;
}

describe('layering of src/', () => {
  let graph: Graph;
  before(() => {
    const root = findRepoRoot();
    assert.ok(root, 'no janus-mcp package.json above the tests');
    graph = importGraph(root, 'src');
  });

  test('every import of src/ can be read and resolved', () => {
    assert.ok(graph.files.length > 50, `found only ${graph.files.length} files under src/`);
    const computedOnPurpose = (problem: string) =>
      COMPUTED_IMPORTS_ALLOWED.has(problem.slice(0, problem.indexOf(':'))) &&
      problem.endsWith('import() of a computed specifier cannot be checked');
    assert.deepEqual(
      graph.unreadable.filter((problem) => !computedOnPurpose(problem)),
      [],
    );
  });

  test('the resource server loads jose and oauth4webapi lazily: their importers are reached only by import()', () => {
    const eager = new Set(
      graph.edges.filter((e) => under('src/auth/server')(e.from) && isOAuthLibrary(e) && e.kind !== 'type').map((e) => e.from),
    );
    const staticallyReached = graph.edges.filter((e) => eager.has(e.to) && e.kind === 'static' && !eager.has(e.from));
    assert.deepEqual(
      staticallyReached.map((e) => `${e.from}:${e.line} → ${e.to}`),
      [],
      'a module that imports jose or oauth4webapi is loaded with import() only (src/auth/server/resource-server.ts)',
    );
  });

  test('the OAuth client loads jose and oauth4webapi lazily: their importers are reached only by import()', () => {
    const clientSide = (e: Edge) => under('src/auth/client')(e.from) || under('src/client')(e.from);
    const eager = new Set(
      graph.edges.filter((e) => under('src/auth/client')(e.from) && isOAuthLibrary(e) && e.kind !== 'type').map((e) => e.from),
    );
    // Everything a static import chain from a loaded module reaches is loaded with it.
    for (let grew = true; grew; ) {
      grew = false;
      for (const e of graph.edges) {
        if (e.kind === 'static' && clientSide(e) && eager.has(e.to) && !eager.has(e.from)) {
          eager.add(e.from);
          grew = true;
        }
      }
    }
    assert.deepEqual(
      [...eager].filter((f) => f === 'src/auth/client/index.ts' || under('src/client')(f)),
      [],
      'src/auth/client/index.ts and src/client load no OAuth library statically: the flow (src/auth/client/flow.ts) is loaded with import() on the first challenge',
    );
  });

  test('each layer registers the handshake era in one file, whose twin for the build without it registers nothing', () => {
    const twins = graph.files.filter((f) => f.endsWith('.modern-only.ts'));
    assert.deepEqual(
      twins.sort(),
      ERA_REGISTRARS.map((f) => f.replace(/\.ts$/, '.modern-only.ts')).sort(),
      'a twin for every registrar, and no other',
    );
    for (const registrar of ERA_REGISTRARS) {
      assert.ok(graph.files.includes(registrar), `${registrar} exists`);
      assert.ok(
        graph.edges.some((e) => e.from === registrar && inLegacy(e.to)),
        `${registrar} registers its layer's legacy/ folder`,
      );
    }
    for (const twin of twins) {
      assert.deepEqual(
        graph.edges.filter((e) => e.from === twin && inLegacy(e.to)).map((e) => e.to),
        [],
        `${twin} (the build without the handshake era) names nothing of it`,
      );
    }
  });

  test('nothing the client reaches is server code: it shares only the protocol and the extensions’ wire parts', () => {
    const reached = new Set(['src/client/index.ts']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const e of graph.edges) {
        if (!e.external && reached.has(e.from) && !reached.has(e.to)) {
          reached.add(e.to);
          grew = true;
        }
      }
    }
    assert.deepEqual(
      [...reached].filter((f) => under('src/server')(f) || under('src/spi')(f)).sort(),
      [],
      'src/client/index.ts reaches these server modules through its imports',
    );
  });

  test('no layer imports what it must not, and src/ has no import cycle, beyond KNOWN_VIOLATIONS', () => {
    const actual = violations(graph.edges);
    const known = new Set(KNOWN_VIOLATIONS);
    const added = actual.filter((v) => !known.has(v));
    const gone = KNOWN_VIOLATIONS.filter((v) => !actual.includes(v));
    const report: string[] = [];
    if (added.length > 0) {
      report.push(`${added.length} new violation(s) of the layering (fix the import; do not add it to KNOWN_VIOLATIONS):`);
      for (const v of added) {
        const rule = RULES.find((r) => v.startsWith(`${r.name}:`));
        report.push(
          `- ${v}`,
          ...(rule ? [`  why: ${rule.why}`] : ['  why: a cycle makes load order matter and the layers inseparable']),
          where(graph.edges, v),
        );
      }
    }
    if (gone.length > 0) {
      report.push(
        `${gone.length} known violation(s) no longer occur: delete them from KNOWN_VIOLATIONS in test/architecture/layering.test.ts:`,
      );
      for (const v of gone) report.push(`- ${JSON.stringify(v)}`);
    }
    assert.ok(report.length === 0, report.join('\n'));
  });
});

describe('the layering check itself', () => {
  const edge = (from: string, to: string, external = false): Edge => ({ from, to, external, kind: 'static', line: 1 });

  test('each rule fires on the import it forbids and allows its neighbours', () => {
    const found = violations([
      edge('src/server/modern/a.ts', 'src/server/legacy/b.ts'),
      edge('src/server/modern/a.ts', 'src/server/features/c.ts'),
      edge('src/protocol/a.ts', 'src/server/index.ts'),
      edge('src/protocol/a.ts', 'node:crypto', true),
      edge('src/protocol/a.ts', 'src/protocol/b.ts'),
      edge('src/jsonrpc/a.ts', 'src/client/b.ts'),
      edge('src/jsonrpc/a.ts', 'src/protocol/b.ts'),
      edge('src/jsonrpc/a.ts', 'src/jsonrpc/b.ts'),
      edge('src/server/features/a.ts', 'src/server/modern/b.ts'),
      edge('src/server/features/a.ts', 'src/server/legacy/b.ts'),
      edge('src/server/features/a.ts', 'src/server/registry.ts'),
      edge('src/transports/http/a.ts', 'src/server/server.ts'),
      edge('src/transports/http/a.ts', 'src/server/index.ts'),
      edge('src/transports/http/a.ts', 'src/protocol/b.ts'),
      edge('src/otel/a.ts', '@opentelemetry/api', true),
      edge('src/otel/a.ts', '@opentelemetry/sdk-trace-base', true),
      edge('src/otel/a.ts', 'node:async_hooks', true),
      edge('src/otel/a.ts', 'src/otel/b.ts'),
      edge('src/otel/a.ts', 'src/server/index.ts'),
      edge('src/otel/a.ts', 'src/client/index.ts'),
      edge('src/otel/a.ts', 'src/protocol/index.ts'),
      edge('src/otel/a.ts', 'src/server/middleware.ts'),
      edge('src/server/a.ts', 'src/otel/index.ts'),
      edge('src/client/a.ts', '@opentelemetry/api', true),
      edge('src/redis/a.ts', 'redis', true),
      edge('src/redis/a.ts', '@redis/client', true),
      edge('src/redis/a.ts', 'src/redis/b.ts'),
      edge('src/redis/a.ts', 'src/server/index.ts'),
      edge('src/redis/a.ts', 'src/protocol/index.ts'),
      edge('src/redis/a.ts', 'src/client/index.ts'),
      edge('src/redis/a.ts', 'src/server/backplane.ts'),
      edge('src/server/a.ts', 'src/redis/index.ts'),
      edge('src/transports/http/a.ts', 'redis', true),
      edge('src/auth/server/a.ts', 'jose', true),
      edge('src/auth/server/a.ts', 'oauth4webapi', true),
      edge('src/auth/server/a.ts', 'src/server/index.ts'),
      edge('src/auth/server/a.ts', 'src/server/core.ts'),
      edge('src/auth/server/a.ts', 'node:crypto', true),
      edge('src/server/a.ts', 'jose', true),
      edge('src/transports/http/a.ts', 'src/auth/server/index.ts'),
      edge('src/transports/http/a.ts', 'src/auth/server/jwt-verifier.ts'),
      edge('src/auth/client/a.ts', 'oauth4webapi', true),
      edge('src/auth/client/a.ts', 'src/protocol/index.ts'),
      edge('src/auth/client/a.ts', 'src/client/index.ts'),
      edge('src/auth/client/a.ts', 'node:http', true),
      { ...edge('src/auth/client/b.ts', 'node:http', true), kind: 'dynamic' },
      edge('src/client/a.ts', 'src/auth/client/index.ts'),
      edge('src/client/a.ts', 'src/auth/client/flow.ts'),
      edge('src/server/modern/a.ts', 'src/extensions/tasks/b.ts'),
      edge('src/server/server.ts', 'src/extensions/tasks/b.ts'),
      edge('src/extensions/tasks/wire.ts', 'src/server/extension.ts'),
      edge('src/extensions/tasks/extension.ts', 'src/server/extension.ts'),
      edge('src/client/a.ts', 'src/server/index.ts'),
      edge('src/client/a.ts', 'src/extensions/tasks/wire.ts'),
      edge('src/server/eras.ts', 'src/server/legacy/index.ts'),
      edge('src/client/client.ts', 'src/client/legacy/connection.ts'),
      edge('src/transports/http/legacy/a.ts', 'src/server/legacy/index.ts'),
      edge('src/transports/http/legacy/a.ts', 'src/server/legacy/session.ts'),
      edge('src/redis/legacy/a.ts', 'src/server/legacy/spi.ts'),
      edge('src/extensions/tasks/a.ts', 'src/server/call.ts'),
      edge('src/cli/a.ts', 'src/cli/b.ts'),
      edge('src/cli/a.ts', 'src/client/index.ts'),
      edge('src/cli/a.ts', 'src/server/index.ts'),
      edge('src/cli/a.ts', 'src/stdio/index.ts'),
      edge('src/cli/a.ts', 'src/transports/http/index.ts'),
      edge('src/cli/a.ts', 'src/protocol/index.ts'),
      edge('src/cli/a.ts', 'src/proxy/index.ts'),
      edge('src/cli/a.ts', 'node:readline/promises', true),
      edge('src/cli/a.ts', 'src/client/client.ts'),
      edge('src/cli/a.ts', 'src/proxy/bridge.ts'),
      edge('src/cli/a.ts', 'zod', true),
      edge('src/proxy/a.ts', 'src/cli/main.ts'),
      edge('src/proxy/a.ts', 'src/proxy/b.ts'),
      edge('src/proxy/a.ts', 'src/server/index.ts'),
      edge('src/proxy/a.ts', 'src/client/index.ts'),
      edge('src/proxy/a.ts', 'src/protocol/index.ts'),
      edge('src/proxy/a.ts', 'node:async_hooks', true),
      edge('src/proxy/a.ts', 'src/client/client.ts'),
      edge('src/proxy/a.ts', 'src/server/middleware.ts'),
      edge('src/proxy/a.ts', 'src/transports/http/index.ts'),
      edge('src/proxy/a.ts', 'zod', true),
      edge('src/server/a.ts', 'src/proxy/index.ts'),
    ]);
    assert.deepEqual(found, [
      'OAuth libraries reached outside auth: src/server/a.ts → jose',
      'OpenTelemetry reached outside otel: src/client/a.ts → @opentelemetry/api',
      'OpenTelemetry reached outside otel: src/server/a.ts → src/otel/index.ts',
      'Redis reached outside redis: src/server/a.ts → src/redis/index.ts',
      'Redis reached outside redis: src/transports/http/a.ts → redis',
      'auth client imports beyond the public entries: src/auth/client/a.ts → node:http',
      'auth client imports beyond the public entries: src/auth/client/a.ts → src/client/index.ts',
      'auth server imports beyond the public entries: src/auth/server/a.ts → node:crypto',
      'auth server imports beyond the public entries: src/auth/server/a.ts → src/server/core.ts',
      'cli imports beyond the public entries: src/cli/a.ts → src/client/client.ts',
      'cli imports beyond the public entries: src/cli/a.ts → src/proxy/bridge.ts',
      'cli imports beyond the public entries: src/cli/a.ts → zod',
      'cli reached from the library: src/proxy/a.ts → src/cli/main.ts',
      'client imports auth internals: src/client/a.ts → src/auth/client/flow.ts',
      'client imports server code: src/client/a.ts → src/server/index.ts',
      'core imports an extension: src/server/modern/a.ts → src/extensions/tasks/b.ts',
      'core imports an extension: src/server/server.ts → src/extensions/tasks/b.ts',
      'extension wire part imports server code: src/extensions/tasks/wire.ts → src/server/extension.ts',
      'features import an era: src/server/features/a.ts → src/server/legacy/b.ts',
      'features import an era: src/server/features/a.ts → src/server/modern/b.ts',
      'handshake era reached outside its registrar: src/client/client.ts → src/client/legacy/connection.ts',
      'handshake era reached outside its registrar: src/server/features/a.ts → src/server/legacy/b.ts',
      'handshake era reached outside its registrar: src/server/modern/a.ts → src/server/legacy/b.ts',
      'jsonrpc imports beyond protocol: src/jsonrpc/a.ts → src/client/b.ts',
      'modern imports legacy: src/server/modern/a.ts → src/server/legacy/b.ts',
      'otel imports beyond the public entries: src/otel/a.ts → @opentelemetry/sdk-trace-base',
      'otel imports beyond the public entries: src/otel/a.ts → node:async_hooks',
      'otel imports beyond the public entries: src/otel/a.ts → src/server/middleware.ts',
      'protocol imports outside protocol: src/protocol/a.ts → node:crypto',
      'protocol imports outside protocol: src/protocol/a.ts → src/server/index.ts',
      'proxy imports beyond the public entries: src/proxy/a.ts → src/cli/main.ts',
      'proxy imports beyond the public entries: src/proxy/a.ts → src/client/client.ts',
      'proxy imports beyond the public entries: src/proxy/a.ts → src/server/middleware.ts',
      'proxy imports beyond the public entries: src/proxy/a.ts → src/transports/http/index.ts',
      'proxy imports beyond the public entries: src/proxy/a.ts → zod',
      'proxy reached from the library: src/server/a.ts → src/proxy/index.ts',
      'redis imports beyond the public entries: src/redis/a.ts → @redis/client',
      'redis imports beyond the public entries: src/redis/a.ts → src/client/index.ts',
      'redis imports beyond the public entries: src/redis/a.ts → src/server/backplane.ts',
      'transports import auth internals: src/transports/http/a.ts → src/auth/server/jwt-verifier.ts',
      'transports import server internals: src/transports/http/a.ts → src/server/server.ts',
      'transports import server internals: src/transports/http/legacy/a.ts → src/server/legacy/session.ts',
    ]);
  });

  test('cycles are reported once each, as file chains from their smallest file', () => {
    const found = violations([
      edge('src/c.ts', 'src/a.ts'),
      edge('src/a.ts', 'src/b.ts'),
      edge('src/b.ts', 'src/c.ts'),
      edge('src/b.ts', 'src/a.ts'),
      edge('src/d.ts', 'src/d.ts'),
      edge('src/a.ts', 'zod', true),
    ]);
    assert.deepEqual(found, [
      'cycle: src/a.ts → src/b.ts → src/a.ts',
      'cycle: src/a.ts → src/b.ts → src/c.ts → src/a.ts',
      'cycle: src/d.ts → src/d.ts',
    ]);
  });

  test('the scanner reads every form of import and nothing inside comments, strings, templates or regular expressions', () => {
    const source = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, d } from\n  '../c.js';",
      "import './side-effect.js';",
      "export * from './star.js';",
      "export { e } from './e.js';",
      "export type { F } from './f.js';",
      "const g = await import('./g.js');",
      "type H = import('./h.js').H;",
      "const r = /'|\"|`|\\/\\/|from '\\.\\/regex\\.js'/g.test(x) ? 1 / 2 : 3;",
      "// import x from './line-comment.js';",
      "/* import y from './block-comment.js'; */",
      'const s = "import z from \'./string.js\'";',
      "const t = `import w from './template.js' ${ { k: import('./in-template.js') }.k } import('./after.js')`;",
      "const u = import.meta.url; obj.import('./method.js'); x.from('./property.js');",
      'const v = await import(name);',
    ].join('\n');
    const scan = scanImports(source);
    assert.deepEqual(
      scan.imports.map((i) => `${i.kind} ${i.specifier} @${i.line}`),
      [
        'static ./a.js @1',
        'type ./b.js @2',
        'static ../c.js @3',
        'static ./side-effect.js @5',
        'static ./star.js @6',
        'static ./e.js @7',
        'type ./f.js @8',
        'dynamic ./g.js @9',
        'dynamic ./h.js @10',
        'dynamic ./in-template.js @15',
      ],
    );
    assert.deepEqual(scan.computed, [17]);
  });
});
