/**
 * Revisions as data: the one table that says what each protocol revision has. Its methods
 * per direction, the fields of the wire types whose shape differs between revisions, its
 * error codes, the capabilities it knows, its transport rules and its feature flags.
 * Nothing outside `src/protocol/` compares version strings or names a version: it asks
 * this table (`revision(v).features.progressMessage`, `revision(v).errors.resourceNotFound`).
 *
 * Each revision is written as the one before it, plus and minus what changed (the
 * revision's changelog, docs/<rev>/changelog.mdx). Adding a revision is one more
 * `derive(...)` entry here (its name joins versions.ts' `KnownRevisions`), or, without
 * touching this file, `registerRevision(base, change)` at run time: everything that asks the
 * table (dispatch, shaping, discovery, the client) then knows it. test/protocol/revisions.test.ts
 * pins methods, fields, capabilities, error codes and the schema-visible flags to each
 * revision's official schema.json. The methods' names are the catalogue's (methods.ts).
 */
import { ErrorCode } from './errors.js';
import {
  requestFacts,
  type ClientNotificationMethod,
  type ClientRequestMethod,
  type ServerNotificationMethod,
  type ServerRequestMethod,
} from './methods.js';
import { addVersion, ALL_VERSIONS, isKnownVersion, type Era, type ProtocolVersion } from './versions.js';

/** Method sets per direction: the `ClientRequest`, `ServerRequest`, `ClientNotification` and `ServerNotification` unions. */
export interface Methods {
  readonly clientRequests: ReadonlySet<string>;
  readonly serverRequests: ReadonlySet<string>;
  readonly clientNotifications: ReadonlySet<string>;
  readonly serverNotifications: ReadonlySet<string>;
}
export type Direction = keyof Methods;

/**
 * The wire types whose fields differ between revisions and that the server shapes per
 * revision (each named as its schema.json definition). The capabilities objects are listed
 * by their top-level names, taken from `capabilities`.
 */
export type WireType =
  | 'Tool'
  | 'Prompt'
  | 'PromptArgument'
  | 'Resource'
  | 'ResourceTemplate'
  | 'Implementation'
  | 'TextContent'
  | 'ImageContent'
  | 'AudioContent'
  | 'EmbeddedResource'
  | 'ResourceLink'
  | 'TextResourceContents'
  | 'BlobResourceContents'
  | 'CallToolResult'
  | 'ClientCapabilities'
  | 'ServerCapabilities';

/** Content block `type` → its wire type. A revision without that wire type has no such block. */
export const CONTENT_BLOCKS: Readonly<Record<string, WireType>> = {
  text: 'TextContent',
  image: 'ImageContent',
  audio: 'AudioContent',
  resource: 'EmbeddedResource',
  resource_link: 'ResourceLink',
};

/** Error codes whose meaning or existence differs between revisions (each field says where). */
export interface RevisionErrors {
  /**
   * An unknown resource URI: -32002 up to 2025-11-25; -32602 in 2026-07-28, where servers
   * MUST NOT emit -32002 (2026-07-28 server/resources.mdx §Error Handling). Named in the
   * docs, not in the schemas.
   */
  readonly resourceNotFound: number;
  /** `URLElicitationRequiredError` (2025-11-25 schema). */
  readonly urlElicitationRequired?: number;
  /** 2026-07-28 basic/index.mdx §Error Codes. */
  readonly headerMismatch?: number;
  readonly missingRequiredClientCapability?: number;
  readonly unsupportedProtocolVersion?: number;
}

/** Transport rules that differ (docs/<rev>/basic/transports.mdx). */
export interface TransportRules {
  /** The HTTP+SSE transport (GET stream, `endpoint` event, POST to it): 2024-11-05. */
  readonly httpSse: boolean;
  /** Streamable HTTP: one endpoint, POST (and in the handshake era GET/DELETE). */
  readonly streamableHttp: boolean;
  /** `Mcp-Session-Id` sessions, the standalone GET stream and DELETE. */
  readonly sessions: boolean;
  /** SSE event ids and GET + `Last-Event-ID` resumption. */
  readonly resumability: boolean;
  /** SSE polling: a priming event (id, empty data) and server-side disconnect with `retry`. */
  readonly ssePolling: boolean;
  /** JSON-RPC batches (arrays) on the wire (2025-03-26 changelog; removed in 2025-06-18). */
  readonly batches: boolean;
  /** The `MCP-Protocol-Version` HTTP header (2025-06-18 changelog). */
  readonly versionHeader: boolean;
  /** `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` request headers (2026-07-28 streamable-http.mdx §Request Metadata). */
  readonly requestHeaders: boolean;
  /** Closing a request's HTTP response stream is its cancellation (2026-07-28 cancellation.mdx). */
  readonly streamCloseCancels: boolean;
}

/** What a revision can carry beyond its method set, fields and capabilities. */
export interface Features {
  /** `message` on `notifications/progress` (2025-03-26 changelog). */
  readonly progressMessage: boolean;
  /** `context.arguments` on `completion/complete` (2025-06-18 changelog). */
  readonly completionContext: boolean;
  /** URL-mode elicitation, and the `mode` field that came with it (2025-11-25 changelog). */
  readonly urlElicitation: boolean;
  /** Elicitation schemas beyond flat primitives: multi-select enums (2025-11-25 changelog, enum schema rework). */
  readonly multiSelectElicitation: boolean;
  /** `structuredContent` may be any JSON value, not only an object (2026-07-28 changelog). */
  readonly structuredContentAnyJson: boolean;
}

/**
 * What one protocol revision has, as the revisions table holds it: its methods, the fields of its wire types, its capabilities, error codes, transport rules and feature flags. Read it with `revision(version)`.
 */
export interface Revision {
  /** The revision's name (its date). */
  readonly version: ProtocolVersion;
  /** The era it belongs to. */
  readonly era: Era;
  /** The core methods per direction. */
  readonly methods: Methods;
  /**
   * Methods the schema's unions hold but marks experimental (2025-11-25 `tasks/*` and
   * `notifications/tasks/status`). Kept apart so that "does this revision have method X"
   * means the core protocol; the tasks extension, not the core, would serve them.
   */
  readonly experimental: Methods;
  /** Requests a server may embed in an `input_required` result (2026-07-28 `InputRequest`). */
  readonly inputRequests: ReadonlySet<string>;
  /** Every field of each wire type the revision defines; an absent type does not exist in it. */
  readonly fields: Readonly<Partial<Record<WireType, ReadonlySet<string>>>>;
  /**
   * Derived: per wire type, the fields some other revision defines and this one does not.
   * Shaping drops exactly these; a field no revision lists is left alone.
   */
  readonly lacks: Readonly<Record<WireType, ReadonlySet<string>>>;
  /** Capability names and their sub-fields as dotted paths (`sampling`, `sampling.tools`). */
  readonly capabilities: { readonly client: ReadonlySet<string>; readonly server: ReadonlySet<string> };
  /** The error codes whose meaning or existence differs between revisions. */
  readonly errors: RevisionErrors;
  /** The transport rules that differ between revisions (HTTP+SSE, sessions, headers). */
  readonly transport: TransportRules;
  /**
   * What it can carry beyond its methods, fields and capabilities (progress messages, completion
   * context, …).
   */
  readonly features: Features;
}

// ---------------------------------------------------------------------------
// How an entry is written: lists in, sets out.

/** Method names per direction: the catalogue's (methods.ts) for the built-in entries, any for a registered revision. */
export interface MethodLists<
  CR extends string = string,
  SR extends string = string,
  CN extends string = string,
  SN extends string = string,
> {
  /** Requests the client sends. */
  readonly clientRequests?: readonly CR[];
  /** Requests the server sends. */
  readonly serverRequests?: readonly SR[];
  /** Notifications the client sends. */
  readonly clientNotifications?: readonly CN[];
  /** Notifications the server sends. */
  readonly serverNotifications?: readonly SN[];
}

/** The built-in entries name only methods of the catalogue: the compiler checks each list. */
type CatalogueLists = MethodLists<ClientRequestMethod, ServerRequestMethod, ClientNotificationMethod, ServerNotificationMethod>;

/** What a revision adds to, or drops from, the one before it (`registerRevision`'s `change.add` and `change.drop`). */
export interface RevisionLists<M extends MethodLists = MethodLists> {
  /** Method names, per direction. */
  readonly methods?: M;
  /** Methods the schema's unions hold but marks experimental (served by an extension, if at all). */
  readonly experimental?: MethodLists;
  /** Requests a server may embed in an `input_required` result. */
  readonly inputRequests?: readonly string[];
  /** Fields of wire types, per type. */
  readonly fields?: Partial<Record<WireType, readonly string[]>>;
  /** Capability names and their sub-fields as dotted paths (`sampling.tools`), per side. */
  readonly capabilities?: { readonly client?: readonly string[]; readonly server?: readonly string[] };
}

/** A revision's own facts, before the derived parts (era, capability fields, `lacks`). */
interface Entry {
  version: ProtocolVersion;
  era: Era;
  methods: Record<Direction, Set<string>>;
  experimental: Record<Direction, Set<string>>;
  inputRequests: Set<string>;
  fields: Partial<Record<WireType, Set<string>>>;
  capabilities: { client: Set<string>; server: Set<string> };
  errors: RevisionErrors;
  transport: TransportRules;
  features: Features;
}

/** A revision written as the one before it, plus and minus what changed. */
export interface RevisionChange<M extends MethodLists = MethodLists> {
  /** The new revision's name (its date, `YYYY-MM-DD`). */
  readonly version: ProtocolVersion;
  /** Its era, when not the one before it's (2026-07-28 began the stateless era). */
  readonly era?: Era;
  /** What it adds to the one before it. */
  readonly add?: RevisionLists<M>;
  /** What it drops from the one before it. */
  readonly drop?: RevisionLists<M>;
  /** Error codes to set; `undefined` removes one. */
  readonly errors?: { readonly [K in keyof RevisionErrors]?: number | undefined };
  /** Transport rules that change. */
  readonly transport?: Partial<TransportRules>;
  /** Features that change. */
  readonly features?: Partial<Features>;
}

/** A built-in entry: its method lists are checked against the catalogue. */
type Change = RevisionChange<CatalogueLists>;

const methodSets = (m: CatalogueLists = {}): Record<Direction, Set<string>> => ({
  clientRequests: new Set(m.clientRequests),
  serverRequests: new Set(m.serverRequests),
  clientNotifications: new Set(m.clientNotifications),
  serverNotifications: new Set(m.serverNotifications),
});

function edit(set: Set<string>, add: readonly string[] = [], drop: readonly string[] = []): Set<string> {
  const out = new Set(set);
  for (const x of add) out.add(x);
  for (const x of drop) out.delete(x);
  return out;
}

function editMethods(base: Entry['methods'], add: MethodLists = {}, drop: MethodLists = {}): Entry['methods'] {
  return {
    clientRequests: edit(base.clientRequests, add.clientRequests, drop.clientRequests),
    serverRequests: edit(base.serverRequests, add.serverRequests, drop.serverRequests),
    clientNotifications: edit(base.clientNotifications, add.clientNotifications, drop.clientNotifications),
    serverNotifications: edit(base.serverNotifications, add.serverNotifications, drop.serverNotifications),
  };
}

/** The revision before, with `change` applied: sets gain `add` and lose `drop`, scalars are overridden. */
function apply(base: Entry, change: RevisionChange): Entry {
  const { add = {}, drop = {} } = change;
  const fields: Partial<Record<WireType, Set<string>>> = {};
  const types = new Set([...Object.keys(base.fields), ...Object.keys(add.fields ?? {})]) as Set<WireType>;
  for (const t of types) {
    const next = edit(base.fields[t] ?? new Set(), add.fields?.[t], drop.fields?.[t]);
    if (next.size) fields[t] = next;
  }
  const merged = { ...base.errors, ...change.errors };
  const errors: RevisionErrors = {
    ...Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, number] => entry[1] !== undefined)),
    resourceNotFound: merged.resourceNotFound ?? base.errors.resourceNotFound,
  };
  return {
    version: change.version,
    era: change.era ?? base.era,
    methods: editMethods(base.methods, add.methods, drop.methods),
    experimental: editMethods(base.experimental, add.experimental, drop.experimental),
    inputRequests: edit(base.inputRequests, add.inputRequests, drop.inputRequests),
    fields,
    capabilities: {
      client: edit(base.capabilities.client, add.capabilities?.client, drop.capabilities?.client),
      server: edit(base.capabilities.server, add.capabilities?.server, drop.capabilities?.server),
    },
    errors,
    transport: { ...base.transport, ...change.transport },
    features: { ...base.features, ...change.features },
  };
}

/** A built-in entry: `apply`, with its method lists checked against the catalogue. */
const derive = (base: Entry, change: Change): Entry => apply(base, change);

// ---------------------------------------------------------------------------
// The table.

/** 2024-11-05: the first dated revision (schema/2024-11-05/schema.json; HTTP+SSE transport). */
const R2024_11_05: Entry = {
  version: '2024-11-05',
  era: 'legacy',
  methods: methodSets({
    clientRequests: [
      'initialize',
      'ping',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'resources/subscribe',
      'resources/unsubscribe',
      'prompts/list',
      'prompts/get',
      'tools/list',
      'tools/call',
      'logging/setLevel',
      'completion/complete',
    ],
    serverRequests: ['ping', 'sampling/createMessage', 'roots/list'],
    clientNotifications: [
      'notifications/cancelled',
      'notifications/initialized',
      'notifications/progress',
      'notifications/roots/list_changed',
    ],
    serverNotifications: [
      'notifications/cancelled',
      'notifications/progress',
      'notifications/resources/list_changed',
      'notifications/resources/updated',
      'notifications/prompts/list_changed',
      'notifications/tools/list_changed',
      'notifications/message',
    ],
  }),
  experimental: methodSets(),
  inputRequests: new Set(),
  fields: {
    Tool: new Set(['name', 'description', 'inputSchema']),
    Prompt: new Set(['name', 'description', 'arguments']),
    PromptArgument: new Set(['name', 'description', 'required']),
    Resource: new Set(['uri', 'name', 'description', 'mimeType', 'size', 'annotations']),
    ResourceTemplate: new Set(['uriTemplate', 'name', 'description', 'mimeType', 'annotations']),
    Implementation: new Set(['name', 'version']),
    TextContent: new Set(['type', 'text', 'annotations']),
    ImageContent: new Set(['type', 'data', 'mimeType', 'annotations']),
    EmbeddedResource: new Set(['type', 'resource', 'annotations']),
    TextResourceContents: new Set(['uri', 'mimeType', 'text']),
    BlobResourceContents: new Set(['uri', 'mimeType', 'blob']),
    CallToolResult: new Set(['content', 'isError', '_meta']),
  },
  capabilities: {
    client: new Set(['experimental', 'roots', 'roots.listChanged', 'sampling']),
    server: new Set([
      'experimental',
      'logging',
      'prompts',
      'prompts.listChanged',
      'resources',
      'resources.subscribe',
      'resources.listChanged',
      'tools',
      'tools.listChanged',
    ]),
  },
  errors: { resourceNotFound: ErrorCode.ResourceNotFound },
  transport: {
    httpSse: true,
    streamableHttp: false,
    sessions: false,
    resumability: false,
    ssePolling: false,
    batches: false,
    versionHeader: false,
    requestHeaders: false,
    streamCloseCancels: false,
  },
  features: {
    progressMessage: false,
    completionContext: false,
    urlElicitation: false,
    multiSelectElicitation: false,
    structuredContentAnyJson: false,
  },
};

/** 2025-03-26 changelog: Streamable HTTP, batches, tool annotations, progress `message`, audio, `completions`. */
const R2025_03_26 = derive(R2024_11_05, {
  version: '2025-03-26',
  add: {
    fields: { Tool: ['annotations'], AudioContent: ['type', 'data', 'mimeType', 'annotations'] },
    capabilities: { server: ['completions'] },
  },
  transport: { httpSse: false, streamableHttp: true, sessions: true, resumability: true, batches: true },
  features: { progressMessage: true },
});

/**
 * 2025-06-18 changelog: batches removed; structured tool output; elicitation; resource
 * links; `MCP-Protocol-Version`; `_meta` and `title` on more types; completion `context`.
 */
const R2025_06_18 = derive(R2025_03_26, {
  version: '2025-06-18',
  add: {
    methods: { serverRequests: ['elicitation/create'] },
    fields: {
      Tool: ['title', 'outputSchema', '_meta'],
      Prompt: ['title', '_meta'],
      PromptArgument: ['title'],
      Resource: ['title', '_meta'],
      ResourceTemplate: ['title', '_meta'],
      Implementation: ['title'],
      TextContent: ['_meta'],
      ImageContent: ['_meta'],
      AudioContent: ['_meta'],
      EmbeddedResource: ['_meta'],
      ResourceLink: ['type', 'uri', 'name', 'title', 'description', 'mimeType', 'size', 'annotations', '_meta'],
      TextResourceContents: ['_meta'],
      BlobResourceContents: ['_meta'],
      CallToolResult: ['structuredContent'],
    },
    capabilities: { client: ['elicitation'] },
  },
  transport: { batches: false, versionHeader: true },
  features: { completionContext: true },
});

/** The experimental core tasks of 2025-11-25 (basic/utilities/tasks.mdx), gone from the core in 2026-07-28. */
const TASKS_METHODS = {
  clientRequests: ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list'],
  serverRequests: ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list'],
  clientNotifications: ['notifications/tasks/status'],
  serverNotifications: ['notifications/tasks/status'],
};
const TASKS_CAPABILITY = ['tasks', 'tasks.list', 'tasks.cancel', 'tasks.requests'];

/**
 * 2025-11-25 changelog: icons; URL elicitation (-32042, `notifications/elicitation/complete`);
 * sampling `tools`; multi-select enums; SSE polling; experimental tasks (methods apart,
 * the `tasks` capabilities and `Tool.execution` as the schema has them).
 */
const R2025_11_25 = derive(R2025_06_18, {
  version: '2025-11-25',
  add: {
    methods: { serverNotifications: ['notifications/elicitation/complete'] },
    experimental: TASKS_METHODS,
    fields: {
      Tool: ['icons', 'execution'],
      Prompt: ['icons'],
      Resource: ['icons'],
      ResourceTemplate: ['icons'],
      ResourceLink: ['icons'],
      Implementation: ['description', 'icons', 'websiteUrl'],
    },
    capabilities: {
      client: ['elicitation.form', 'elicitation.url', 'sampling.context', 'sampling.tools', ...TASKS_CAPABILITY],
      server: TASKS_CAPABILITY,
    },
  },
  errors: { urlElicitationRequired: ErrorCode.UrlElicitationRequired },
  transport: { ssePolling: true },
  features: { urlElicitation: true, multiSelectElicitation: true },
});

/**
 * 2026-07-28 changelog (stateless era): no handshake, no ping, no server-to-client requests
 * (their three kinds ride in `input_required` results), `server/discover` and
 * `subscriptions/listen`; -32602 for unknown resources; -32020/-32021/-32022; the Mcp-*
 * headers; POST only; core tasks gone; `structuredContent` any JSON.
 */
const R2026_07_28 = derive(R2025_11_25, {
  version: '2026-07-28',
  era: 'modern',
  add: {
    methods: {
      clientRequests: ['server/discover', 'subscriptions/listen'],
      serverNotifications: ['notifications/subscriptions/acknowledged'],
    },
    inputRequests: ['sampling/createMessage', 'roots/list', 'elicitation/create'],
    fields: { CallToolResult: ['resultType'] },
    capabilities: { client: ['extensions'], server: ['extensions'] },
  },
  drop: {
    methods: {
      clientRequests: ['initialize', 'ping', 'resources/subscribe', 'resources/unsubscribe', 'logging/setLevel'],
      serverRequests: ['ping', 'sampling/createMessage', 'roots/list', 'elicitation/create'],
      clientNotifications: ['notifications/initialized', 'notifications/progress', 'notifications/roots/list_changed'],
      serverNotifications: ['notifications/elicitation/complete'],
    },
    experimental: TASKS_METHODS,
    fields: { Tool: ['execution'] },
    capabilities: { client: [...TASKS_CAPABILITY, 'roots.listChanged'], server: TASKS_CAPABILITY },
  },
  errors: {
    resourceNotFound: ErrorCode.InvalidParams,
    urlElicitationRequired: undefined,
    headerMismatch: ErrorCode.HeaderMismatch,
    missingRequiredClientCapability: ErrorCode.MissingRequiredClientCapability,
    unsupportedProtocolVersion: ErrorCode.UnsupportedProtocolVersion,
  },
  transport: { sessions: false, resumability: false, ssePolling: false, requestHeaders: true, streamCloseCancels: true },
  features: { structuredContentAnyJson: true },
});

const entries = new Map<ProtocolVersion, Entry>();
for (const e of [R2024_11_05, R2025_03_26, R2025_06_18, R2025_11_25, R2026_07_28]) entries.set(e.version, e);

// ---------------------------------------------------------------------------
// Derived views, rebuilt whenever a revision is added.

const WIRE_TYPES: readonly WireType[] = [
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

const topLevel = (paths: Set<string>) => new Set([...paths].filter((p) => !p.includes('.')));

function fieldsOf(e: Entry): Partial<Record<WireType, ReadonlySet<string>>> {
  return { ...e.fields, ClientCapabilities: topLevel(e.capabilities.client), ServerCapabilities: topLevel(e.capabilities.server) };
}

/**
 * Every revision of `entries` with its derived parts. `lacks` depends on all of them (a field
 * one revision adds is one every other lacks), so it is rebuilt whole when one is added.
 */
function build(): ReadonlyMap<ProtocolVersion, Revision> {
  const list = [...entries.values()].sort((a, b) => (a.version < b.version ? -1 : 1));
  const fields = list.map(fieldsOf);
  const perType = <T>(f: (t: WireType) => T) => Object.fromEntries(WIRE_TYPES.map((t) => [t, f(t)])) as Record<WireType, T>;
  const known = perType((t) => new Set(fields.flatMap((f) => [...(f[t] ?? [])])));
  const out = new Map<ProtocolVersion, Revision>();
  list.forEach((e, i) => {
    addVersion(e.version, e.era);
    const own = fields[i]!;
    const lacks = perType((t): ReadonlySet<string> => new Set([...known[t]].filter((k) => !own[t]?.has(k))));
    out.set(
      e.version,
      Object.freeze({
        version: e.version,
        era: e.era,
        methods: e.methods,
        experimental: e.experimental,
        inputRequests: e.inputRequests,
        fields: own,
        lacks,
        capabilities: e.capabilities,
        errors: Object.freeze(e.errors),
        transport: Object.freeze(e.transport),
        features: Object.freeze(e.features),
      }),
    );
  });
  const missing = ALL_VERSIONS.filter((v) => !out.has(v));
  if (missing.length) throw new Error(`revisions table out of step with versions.ts: ${missing.join(', ')}`);
  return out;
}

let TABLE = build();

/** Every revision, oldest first (the same array, grown in place, when a revision is registered). */
export const REVISIONS: readonly Revision[] = [];

/** The views derived from the whole table; rebuilt when a revision is added. */
let LEGACY_REQUESTS: ReadonlySet<string> = new Set();
let MODERN_ONLY: ReadonlySet<string> = new Set();

function refresh(): void {
  const all = REVISIONS as Revision[];
  all.length = 0;
  for (const v of ALL_VERSIONS) all.push(TABLE.get(v)!);
  LEGACY_REQUESTS = new Set(all.filter((r) => r.era === 'legacy').flatMap((r) => [...r.methods.clientRequests]));
  MODERN_ONLY = new Set(
    all
      .filter((r) => r.era === 'modern')
      .flatMap((r) => [...r.methods.clientRequests])
      .filter((m) => !LEGACY_REQUESTS.has(m)),
  );
  for (const listener of listeners) listener();
}

const listeners: Array<() => void> = [];

/**
 * Calls `listener` whenever a revision is added, for a view derived from the table elsewhere
 * (a cache per revision is then out of date).
 * @internal
 */
export function onRevisionAdded(listener: () => void): void {
  listeners.push(listener);
}

/** What revision `v` has. */
export function revision(v: ProtocolVersion): Revision {
  const r = TABLE.get(v);
  if (!r) throw new Error(`unknown protocol revision ${String(v)}`);
  return r;
}

/**
 * Adds a revision to the table at run time, written as `base` plus and minus `change`, as the
 * built-in entries are: from then on discovery offers it, dispatch admits its methods, results
 * are shaped to its fields and the client negotiates it. Its era is `base`'s unless `era` says
 * otherwise. For a revision newer than this library, or one of your own for a test; its name
 * joins `KnownRevisions` by declaration merging (versions.ts) for its type.
 *
 * ```ts
 * registerRevision('2026-07-28', {
 *   version: '2027-01-01',
 *   add: { methods: { clientRequests: ['widgets/count'] }, fields: { CallToolResult: ['widgetCount'] } },
 * });
 * ```
 */
export function registerRevision(base: ProtocolVersion, change: RevisionChange): Revision {
  if (isKnownVersion(change.version)) throw new Error(`protocol revision ${change.version} is already in the table`);
  const from = entries.get(base);
  if (from === undefined) throw new Error(`registerRevision: unknown base revision ${String(base)}`);
  const entry = apply(from, change);
  entries.set(entry.version, entry);
  TABLE = build();
  refresh();
  return revision(entry.version);
}

/** The oldest revision with a property (for messages such as "needs protocol X or later"). */
export function since(has: (r: Revision) => boolean): ProtocolVersion | undefined {
  return REVISIONS.find(has)?.version;
}

/** The revisions with a property, oldest first. */
export function revisionsWith(has: (r: Revision) => boolean): ProtocolVersion[] {
  return REVISIONS.filter(has).map((r) => r.version);
}

refresh();

/** A client request no handshake-era revision has (`server/discover`, `subscriptions/listen`): it claims the modern wire. */
export function isModernOnlyMethod(method: string): boolean {
  return MODERN_ONLY.has(method);
}

/**
 * Requests answered by a long-lived event stream rather than one result: `subscriptions/listen`
 * (2026-07-28 streamable-http.mdx §Receiving Messages, basic/patterns/subscriptions.mdx). A
 * client that accepts no event stream can never be answered.
 */
export function answersWithStream(method: string): boolean {
  return requestFacts(method)?.stream === true;
}
