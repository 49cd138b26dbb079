/**
 * The revisions table (src/protocol/revisions.ts) is true to each revision's official
 * schema (spec/schema/<rev>/schema.json), and it is the only place that knows revisions:
 * - methods: per direction, the table's core methods plus its `experimental` ones equal the
 *   schema's `ClientRequest`/`ServerRequest`/`ClientNotification`/`ServerNotification`
 *   unions; `experimental` holds exactly the 2025-11-25 tasks methods (the table's choice:
 *   the core does not serve them, an extension would); `inputRequests` equals 2026-07-28's
 *   `InputRequest` union;
 * - fields: every wire type the table lists has exactly the schema definition's properties
 *   in that revision (so a field added to the wrong revision fails), and a type the table
 *   leaves out has no definition there; the shaping keeps exactly the table's fields;
 * - capabilities (with their sub-fields), the revision-specific error codes and the flags
 *   the schema can show (progress `message`, completion `context`, URL elicitation,
 *   multi-select enums, any-JSON `structuredContent`, batches);
 * - no file under src/ outside src/protocol/ names a version or compares versions
 *   (comments, which cite spec revisions, aside).
 * Flags only the transport pages state (HTTP+SSE, sessions, the version header, SSE polling,
 * the Mcp-* headers) and `resourceNotFound` (docs only) are not in the schemas; the table cites them.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { REVISIONS, revision, type Direction, type Revision, type WireType } from '../../src/protocol/revisions.js';
import { ALL_VERSIONS, eraOf } from '../../src/protocol/versions.js';
import {
  pick,
  shapeCallToolResult,
  shapeContent,
  shapePrompt,
  shapeResource,
  shapeResourceContents,
  shapeResourceTemplate,
  shapeTool,
} from '../../src/server/shape.js';

type Json = Record<string, unknown>;

function repoRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'janus-mcp') return dir;
    if (dirname(dir) === dir) throw new Error('repository root not found');
  }
}
const ROOT = repoRoot();

// ---------------------------------------------------------------------------
// Reading a schema.json

class Schema {
  readonly defs: Record<string, Json>;
  constructor(readonly rev: string) {
    const s = JSON.parse(readFileSync(join(ROOT, 'spec', 'schema', rev, 'schema.json'), 'utf8')) as Json;
    this.defs = (s.definitions ?? s.$defs) as Record<string, Json>;
  }

  deref(node: Json): Json {
    const ref = node.$ref;
    return typeof ref === 'string' ? this.deref(this.defs[ref.split('/').pop()!]!) : node;
  }

  /** Every property name of a definition, through `$ref` and `allOf`. */
  props(node: Json): Set<string> {
    const d = this.deref(node);
    const out = new Set(Object.keys((d.properties ?? {}) as Json));
    for (const part of (d.allOf ?? []) as Json[]) for (const p of this.props(part)) out.add(p);
    return out;
  }

  property(node: Json | undefined, name: string): Json | undefined {
    if (!node) return undefined;
    const d = this.deref(node);
    const own = (d.properties as Record<string, Json> | undefined)?.[name];
    if (own) return own;
    for (const part of (d.allOf ?? []) as Json[]) {
      const p = this.property(part, name);
      if (p) return p;
    }
    return undefined;
  }

  /** The `code` consts an error definition fixes, through `$ref` and `allOf`. */
  codes(node: Json | undefined): number[] {
    if (!node) return [];
    const d = this.deref(node);
    const own = (d.properties as Record<string, Json> | undefined)?.code?.const;
    return [...(typeof own === 'number' ? [own] : []), ...((d.allOf ?? []) as Json[]).flatMap((part) => this.codes(part))];
  }

  /** The `method` consts of a union definition (a single member when it is no union; none when absent). */
  methods(union: string): Set<string> {
    const d = this.defs[union];
    if (!d) return new Set();
    const members = ((d.anyOf ?? d.oneOf) as Json[] | undefined) ?? [d];
    return new Set(members.map((m) => this.property(m, 'method')!.const as string));
  }

  /** `params` of a request or notification definition. */
  params(def: string): Json | undefined {
    return this.property(this.defs[def], 'params');
  }
}

const SCHEMAS = new Map(ALL_VERSIONS.map((v) => [v, new Schema(v)]));
const schemaOf = (r: Revision) => SCHEMAS.get(r.version)!;
const sorted = (s: Iterable<string>) => [...s].sort();

const UNIONS: Record<Direction, string> = {
  clientRequests: 'ClientRequest',
  serverRequests: 'ServerRequest',
  clientNotifications: 'ClientNotification',
  serverNotifications: 'ServerNotification',
};

// ---------------------------------------------------------------------------
// The table against the schemas

test('the table has one entry per revision of versions.ts, oldest first, each in its era', () => {
  assert.deepEqual(
    REVISIONS.map((r) => r.version),
    [...ALL_VERSIONS],
  );
  for (const r of REVISIONS) assert.equal(r.era, eraOf(r.version), r.version);
  assert.deepEqual([...SCHEMAS.keys()], readdirSync(join(ROOT, 'spec', 'schema')).sort(), 'every schema folder is a revision of the table');
});

test('methods: core plus experimental equal the ClientRequest/ServerRequest/ClientNotification/ServerNotification unions of each schema', () => {
  for (const r of REVISIONS) {
    const s = schemaOf(r);
    for (const d of Object.keys(UNIONS) as Direction[]) {
      const core = r.methods[d];
      const experimental = r.experimental[d];
      assert.deepEqual(sorted([...core, ...experimental]), sorted(s.methods(UNIONS[d])), `${r.version} ${UNIONS[d]}`);
      assert.deepEqual(
        [...core].filter((m) => experimental.has(m)),
        [],
        `${r.version} ${d}: a method is core or experimental, not both`,
      );
      // The table's decision: the experimental methods are exactly the 2025-11-25 core tasks.
      assert.deepEqual(
        sorted(experimental),
        sorted([...s.methods(UNIONS[d])].filter((m) => /^(notifications\/)?tasks\//.test(m))),
        `${r.version} ${d} experimental`,
      );
    }
    assert.deepEqual(sorted(r.inputRequests), sorted(s.methods('InputRequest')), `${r.version} InputRequest`);
  }
});

const TABLE_TYPES: readonly WireType[] = [
  'Tool',
  'Prompt',
  'PromptArgument',
  'Resource',
  'ResourceTemplate',
  'Implementation',
  'TextContent',
  'ImageContent',
  'AudioContent',
  'EmbeddedResource',
  'ResourceLink',
  'TextResourceContents',
  'BlobResourceContents',
  'CallToolResult',
  'ClientCapabilities',
  'ServerCapabilities',
];

/** Where the table's fields of each wire type differ from the schemas; empty when they agree. */
function fieldProblems(fieldsOf: (r: Revision) => Revision['fields']): string[] {
  const problems: string[] = [];
  for (const r of REVISIONS) {
    const s = schemaOf(r);
    for (const t of TABLE_TYPES) {
      const listed = fieldsOf(r)[t];
      const def = s.defs[t];
      if (!def) {
        if (listed) problems.push(`${r.version} ${t}: listed, but the schema has no such type`);
        continue;
      }
      if (!listed) {
        problems.push(`${r.version} ${t}: the schema defines it, the table does not`);
        continue;
      }
      const actual = s.props(def);
      for (const f of listed) if (!actual.has(f)) problems.push(`${r.version} ${t}.${f}: listed, but not in the schema`);
      for (const f of actual) if (!listed.has(f)) problems.push(`${r.version} ${t}.${f}: in the schema, not listed`);
    }
  }
  return problems;
}

test('fields: each wire type the table lists has exactly the properties of its schema definition, per revision', () => {
  assert.deepEqual(
    fieldProblems((r) => r.fields),
    [],
  );
});

test('fields: a field put in the wrong revision fails the check (icons on a 2025-06-18 Tool, structuredContent on a 2025-03-26 result)', () => {
  const tampered = (r: Revision): Revision['fields'] => {
    if (r.version === '2025-06-18') return { ...r.fields, Tool: new Set([...r.fields.Tool!, 'icons']) };
    if (r.version === '2025-03-26') return { ...r.fields, CallToolResult: new Set([...r.fields.CallToolResult!, 'structuredContent']) };
    return r.fields;
  };
  assert.deepEqual(fieldProblems(tampered), [
    '2025-03-26 CallToolResult.structuredContent: listed, but not in the schema',
    '2025-06-18 Tool.icons: listed, but not in the schema',
  ]);
});

test('capabilities: the names and sub-fields the table lists are those of ClientCapabilities and ServerCapabilities', () => {
  for (const r of REVISIONS) {
    const s = schemaOf(r);
    for (const side of ['client', 'server'] as const) {
      const def = s.defs[side === 'client' ? 'ClientCapabilities' : 'ServerCapabilities']!;
      const paths: string[] = [];
      for (const [name, node] of Object.entries(def.properties as Record<string, Json>)) {
        paths.push(name);
        for (const sub of Object.keys((s.deref(node).properties ?? {}) as Json)) paths.push(`${name}.${sub}`);
      }
      assert.deepEqual(sorted(r.capabilities[side]), sorted(paths), `${r.version} ${side}`);
    }
  }
});

test('error codes: the revision-specific codes the table lists are the error definitions of each schema (-32042 in 2025-11-25; -32020/-32021/-32022 in 2026-07-28)', () => {
  const STANDARD = new Set([-32700, -32600, -32601, -32602, -32603]);
  for (const r of REVISIONS) {
    const s = schemaOf(r);
    const defined = new Set<number>();
    for (const def of Object.values(s.defs)) {
      for (const code of [...s.codes(def), ...s.codes(s.property(def, 'error'))]) if (!STANDARD.has(code)) defined.add(code);
    }
    const { resourceNotFound, ...specific } = r.errors;
    assert.deepEqual(Object.values(specific).sort(), [...defined].sort(), r.version);
    // Not in any schema (resources.mdx §Error Handling): -32002 in the handshake era, -32602 after.
    assert.equal(resourceNotFound, r.era === 'legacy' ? -32002 : -32602, r.version);
  }
});

test('flags the schemas show: progress message, completion context, URL elicitation, multi-select enums, any-JSON structuredContent, batches', () => {
  for (const r of REVISIONS) {
    const s = schemaOf(r);
    const f = r.features;
    assert.equal(f.progressMessage, s.props(s.params('ProgressNotification')!).has('message'), `${r.version} progressMessage`);
    assert.equal(f.completionContext, s.props(s.params('CompleteRequest')!).has('context'), `${r.version} completionContext`);
    assert.equal(f.urlElicitation, 'ElicitRequestURLParams' in s.defs, `${r.version} urlElicitation`);
    assert.equal(f.multiSelectElicitation, 'MultiSelectEnumSchema' in s.defs, `${r.version} multiSelectElicitation`);
    const sc = s.property(s.defs.CallToolResult, 'structuredContent');
    assert.equal(f.structuredContentAnyJson, sc !== undefined && sc.type === undefined, `${r.version} structuredContentAnyJson`);
    const batch = ((s.defs.JSONRPCMessage!.anyOf ?? []) as Json[]).some((m) => s.deref(m).type === 'array');
    assert.equal(r.transport.batches, batch, `${r.version} batches`);
    assert.equal(r.capabilities.client.has('elicitation'), 'ElicitRequest' in s.defs, `${r.version} elicitation`);
    assert.equal(r.fields.AudioContent !== undefined, 'AudioContent' in s.defs, `${r.version} audio`);
  }
});

// ---------------------------------------------------------------------------
// The shaping applies the table

/** A value with every field any revision gives `type` (and one no revision knows, which is kept). */
function everything(type: WireType, base: Json = {}): Json {
  const out: Json = { ...base, 'x-custom': 1 };
  for (const r of REVISIONS) for (const f of r.fields[type] ?? []) if (!(f in out)) out[f] = `${type}.${f}`;
  return out;
}

test('shaping keeps exactly the fields the table gives the revision in use', () => {
  const shapers: Array<[WireType, (v: Revision['version'], x: Json) => Json, Json?]> = [
    ['Tool', shapeTool],
    ['Prompt', (v, x) => shapePrompt(v, x), { arguments: 'none' }],
    ['Resource', shapeResource],
    ['ResourceTemplate', shapeResourceTemplate],
    ['Implementation', (v, x) => pick('Implementation', v, x)],
    ['ServerCapabilities', (v, x) => pick('ServerCapabilities', v, x)],
    ['TextResourceContents', shapeResourceContents, { text: 't' }],
    ['BlobResourceContents', shapeResourceContents, { blob: 'b' }],
    ['TextContent', shapeContent, { type: 'text' }],
    ['ImageContent', shapeContent, { type: 'image' }],
    ['EmbeddedResource', shapeContent, { type: 'resource', resource: { uri: 'a:b', text: 't' } }],
    ['CallToolResult', shapeCallToolResult, { content: [], structuredContent: { a: 1 } }],
  ];
  for (const r of REVISIONS) {
    for (const [type, shape, base] of shapers) {
      const value = everything(type, base);
      const expected = [...r.fields[type]!, 'x-custom'];
      assert.deepEqual(sorted(Object.keys(shape(r.version, value))), sorted(expected), `${r.version} ${type}`);
    }
    const args = shapePrompt(r.version, { name: 'p', arguments: [everything('PromptArgument')] }).arguments as Json[];
    assert.deepEqual(sorted(Object.keys(args[0]!)), sorted([...r.fields.PromptArgument!, 'x-custom']), `${r.version} PromptArgument`);
    for (const [block, type] of [
      ['audio', 'AudioContent'],
      ['resource_link', 'ResourceLink'],
    ] as const) {
      const shaped = shapeContent(r.version, everything(type, { type: block }));
      if (r.fields[type]) assert.deepEqual(sorted(Object.keys(shaped)), sorted([...r.fields[type], 'x-custom']), `${r.version} ${type}`);
      else assert.equal(shaped.type, 'text', `${r.version}: a ${block} block becomes text`);
    }
    const structured = shapeCallToolResult(r.version, { content: [], structuredContent: [1, 2] });
    assert.equal(
      'structuredContent' in structured,
      revision(r.version).features.structuredContentAnyJson,
      `${r.version}: non-object structuredContent`,
    );
  }
});

// ---------------------------------------------------------------------------
// Nobody else knows revisions

/**
 * The code of a TypeScript file with its comments blanked out (line structure kept): strings,
 * template literals (with nested `${}`) and regular expression literals are read as such,
 * so a `//` or a quote inside them is not taken for a comment or a string.
 */
function withoutComments(src: string): string {
  const out = src.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  const braces: number[] = []; // open `{` count per template expression we are inside
  let prev = ''; // last significant character of code
  const readString = (q: string) => {
    for (i++; i < src.length && src[i] !== q; i++) if (src[i] === '\\') i++;
    i++;
  };
  const readTemplate = () => {
    // at the character after '`' or after the '}' that closes a `${`
    for (; i < src.length; i++) {
      if (src[i] === '\\') i++;
      else if (src[i] === '`') return void i++;
      else if (src[i] === '$' && src[i + 1] === '{') {
        i += 2;
        braces.push(0);
        return;
      }
    }
  };
  while (i < src.length) {
    const c = src[i]!;
    const n = src[i + 1];
    if (c === '/' && n === '/') {
      const end = src.indexOf('\n', i);
      const stop = end === -1 ? src.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && n === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end === -1 ? src.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"') {
      readString(c);
      prev = c;
    } else if (c === '`') {
      i++;
      readTemplate();
      prev = '`';
    } else if (
      c === '/' &&
      (prev === '' ||
        '(,=:[!&|?{};+-*%<>~^'.includes(prev) ||
        /\b(return|typeof|case|of|in)$/.test(src.slice(Math.max(0, i - 8), i).trimEnd()))
    ) {
      let inClass = false;
      for (i++; i < src.length && (inClass || src[i] !== '/') && src[i] !== '\n'; i++) {
        if (src[i] === '\\') i++;
        else if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
      }
      i++;
      while (i < src.length && /[a-z]/.test(src[i]!)) i++;
      prev = '/';
    } else {
      if (braces.length && c === '{') braces[braces.length - 1]!++;
      if (braces.length && c === '}') {
        if (braces[braces.length - 1] === 0) {
          braces.pop();
          i++;
          readTemplate();
          prev = '`';
          continue;
        }
        braces[braces.length - 1]!--;
      }
      if (!/\s/.test(c)) prev = c;
      i++;
    }
  }
  return out.join('');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const VERSION_LITERAL = /(['"`])20\d\d-\d\d-\d\d\1/;
/** An ordering comparison with a version-named operand (`v >= x`, `x < protocolVersion`), atLeast(), localeCompare on versions. */
const VERSION_COMPARISON = [
  /\b(?:v|version|\w*Version)!?\s+[<>]=?\s+\S/,
  /\S\s+[<>]=?\s+(?:this\.)?(?:\w+\??\.)*(?:v|version|\w*Version)\b/,
  /\batLeast\s*\(/,
  /[vV]ersion\w*\??\.localeCompare\(/,
];

/** Lines of `src` (comments removed) that name a version or compare versions. */
function offences(code: string): string[] {
  return code
    .split('\n')
    .flatMap((line, k) =>
      VERSION_LITERAL.test(line) || VERSION_COMPARISON.some((re) => re.test(line)) ? [`${k + 1}: ${line.trim()}`] : [],
    );
}

test('the source check finds literals and comparisons, and ignores comments and strings that only look like them', () => {
  assert.deepEqual(
    offences(
      withoutComments(
        [
          "// negotiated '2025-06-18' or later",
          "/* if (v >= '2025-06-18') */ const a = 1;",
          "const url = 'http://x/*not a comment*/'; // v < '2025-03-26'",
          'const re = /\\/\\/ no/; const t = `${a} // ${"x"}`;',
          "if (v >= '2025-06-18') x();",
          'if (session.protocolVersion === "2025-03-26") y();',
          'if (this.legacyVersion >= since) z();',
          'const ok = atLeast(v, w);',
          'const m = new Map<string, LegacyVersion>(); const n: Array<ProtocolVersion> = [];',
        ].join('\n'),
      ),
    ).map((l) => l.split(':')[0]),
    ['5', '6', '7', '8'],
  );
});

test('no file under src/ outside src/protocol/ names a revision or compares versions (comments may cite revisions)', () => {
  const src = join(ROOT, 'src');
  const found: string[] = [];
  for (const file of sourceFiles(src)) {
    const rel = relative(src, file);
    if (rel.startsWith('protocol/') || rel.startsWith(`protocol\\`)) continue;
    for (const o of offences(withoutComments(readFileSync(file, 'utf8')))) found.push(`src/${rel}:${o}`);
  }
  assert.deepEqual(found, []);
  assert.ok(existsSync(resolve(src, 'protocol', 'revisions.ts')));
});
