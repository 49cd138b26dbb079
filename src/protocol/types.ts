/**
 * Wire types shared by both eras, written from `schema/<rev>/schema.json`. They describe
 * the newest shape of each type; the server leaves out what an older revision lacks.
 */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };
/** The `_meta` member of MCP messages and objects: open metadata keyed by (prefixed) names. */
export type Meta = Record<string, unknown>;

/** An icon for a tool, prompt, resource or implementation (schema `Icon`): an image URL or `data:` URI. */
export interface Icon {
  /** The image: an `https:` URL or a `data:` URI. */
  src: string;
  /** Its MIME type, when the URL does not tell. */
  mimeType?: string;
  /** The sizes it is available in (`48x48`, `any` for scalable formats). */
  sizes?: string[];
  /** The theme it is meant for: `light` (for a light background) or `dark`. */
  theme?: 'light' | 'dark';
}

/** The name and version of an MCP client or server (schema `Implementation`), as it introduces itself. */
export interface Implementation {
  /** The program's name (not meant for display when `title` is given). */
  name: string;
  /** Its version. */
  version: string;
  /** A human-readable name for display. */
  title?: string;
  /** What it is, for display. */
  description?: string;
  /** Its website. */
  websiteUrl?: string;
  /** Icons for display. */
  icons?: Icon[];
}

/** What a client declares it can do (schema `ClientCapabilities`): the server may send only the requests these allow. */
export interface ClientCapabilities {
  /** Non-standard capabilities, by name. */
  experimental?: Record<string, object>;
  /** The client exposes roots (`roots/list`), and says when they change when `listChanged` is true. */
  roots?: { listChanged?: boolean };
  /** The client lets the server sample its model (`sampling/createMessage`); `tools`: with tools. */
  sampling?: { context?: object; tools?: object };
  /**
   * The client can ask its user for the server (`elicitation/create`), in form mode, URL mode or
   * both.
   */
  elicitation?: { form?: object; url?: object };
  /** 2025-11-25: what the client can do with tasks (experimental). */
  tasks?: object;
  /** The extensions the client supports, by identifier, with their settings (2026-07-28). */
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

/** What a server declares it offers (schema `ServerCapabilities`): the features it serves and the notifications it sends. */
export interface ServerCapabilities {
  /** Non-standard capabilities, by name. */
  experimental?: Record<string, object>;
  /** The server sends log messages (`notifications/message`). */
  logging?: object;
  /** The server completes argument values (`completion/complete`). */
  completions?: object;
  /** The server has prompts; `listChanged`: it says when their list changes. */
  prompts?: { listChanged?: boolean };
  /**
   * The server has resources; `subscribe`: clients may subscribe to a resource's updates;
   * `listChanged`: it says when their list changes.
   */
  resources?: { subscribe?: boolean; listChanged?: boolean };
  /** The server has tools; `listChanged`: it says when their list changes. */
  tools?: { listChanged?: boolean };
  /** The extensions the server supports, by identifier, with their settings (2026-07-28). */
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

/** A log message's severity (schema `LoggingLevel`, the syslog levels), least severe first. */
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
/** Every {@link LoggingLevel}, least severe first. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Who a message is from or for: the user or the assistant (the model). */
export type Role = 'user' | 'assistant';

/** Hints on a content block or a resource (schema `Annotations`): whom it is for, how important it is, when it last changed. */
export interface Annotations {
  /** Whom it is meant for: the user, the model (`assistant`), or both. */
  audience?: Role[];
  /** How important it is, from 0 (least) to 1 (most). */
  priority?: number;
  /** When it last changed (ISO 8601). */
  lastModified?: string;
}

/** A text content block. */
export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}
/** An image content block: base64 `data` of type `mimeType`. */
export interface ImageContent {
  type: 'image';
  /** The image, base64-encoded. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}
/** An audio content block: base64 `data` of type `mimeType`. */
export interface AudioContent {
  type: 'audio';
  /** The audio, base64-encoded. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** A resource's contents as text. */
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}
/** A resource's contents as binary data, base64 in `blob`. */
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  /** The contents, base64-encoded. */
  blob: string;
  _meta?: Meta;
}
/** A resource's contents, text or binary. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A content block that carries a resource's contents inline. */
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}

/** A content block that points to a resource by URI, for the client to read if it wants. */
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The resource's size in bytes, if known. */
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
}

/** Any content block: what tool results, prompt messages and sampling carry. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/**
 * Hints about a tool's behaviour (schema `ToolAnnotations`). They are hints from the server, not guarantees: a client should not trust them from a server it does not trust.
 */
export interface ToolAnnotations {
  /** A human-readable name for display. */
  title?: string;
  /** The tool does not change its environment (default false). */
  readOnlyHint?: boolean;
  /**
   * The tool may destroy or overwrite things, rather than only add (default true; meaningful when
   * not read-only).
   */
  destructiveHint?: boolean;
  /**
   * Calling it again with the same arguments has no further effect (default false; meaningful when
   * not read-only).
   */
  idempotentHint?: boolean;
  /**
   * The tool reaches an open world of entities (the web, say) rather than a closed one (default
   * true).
   */
  openWorldHint?: boolean;
}

/** A tool as `tools/list` lists it (schema `Tool`): its name, its input (and output) JSON Schema, and how to present it. */
export interface Tool {
  /** The tool's name, unique on its server: what `tools/call` names. */
  name: string;
  title?: string;
  description?: string;
  /** The JSON Schema (an object schema) of its arguments. */
  inputSchema: Record<string, unknown>;
  /** The JSON Schema of its `structuredContent`, when it returns structured results. */
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** 2025-11-25: whether the tool may or must run as a task (experimental tasks). */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: Meta;
}

/**
 * What `tools/call` returns (schema `CallToolResult`): content for the model, optional structured content matching the output schema, and `isError` when the tool failed.
 */
export interface CallToolResult {
  /** The result for the model: text, images, audio, resources. */
  content: ContentBlock[];
  /** The result as a JSON object, matching the tool's `outputSchema` when it has one. */
  structuredContent?: unknown;
  /** The tool failed; `content` says why, for the model to read (and maybe retry). */
  isError?: boolean;
  _meta?: Meta;
}

/** An argument a prompt takes. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  /** The prompt cannot be used without it. */
  required?: boolean;
}

/** A prompt as `prompts/list` lists it (schema `Prompt`). */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

/** One message of a prompt: a role and its content. */
export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}
/** What `prompts/get` returns (schema `GetPromptResult`): the prompt's messages, its arguments filled in. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

/** A resource as `resources/list` lists it (schema `Resource`). */
export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
}

/** A family of resources whose URIs follow an RFC 6570 URI template, as `resources/templates/list` lists it. */
export interface ResourceTemplate {
  /** The RFC 6570 URI template the resources' URIs follow. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
}

/** What `resources/read` returns: the resource's contents (one or more parts). */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
}

/** What `completion/complete` offers for an argument: the values (at most 100), and how many there are in all. */
export interface Completion {
  /** The suggested values, best first (at most 100). */
  values: string[];
  /** How many values there are in all, when more exist than are sent. */
  total?: number;
  /** More values exist than were sent. */
  hasMore?: boolean;
}

/** A root the client exposes to the server (schema `Root`): a `file://` URI the server may work in. */
export interface Root {
  /** The root's URI (`file://` in current revisions). */
  uri: string;
  /** A name for display. */
  name?: string;
  _meta?: Meta;
}

/** One message of a sampling conversation (`sampling/createMessage`). */
export interface SamplingMessage {
  role: Role;
  content: unknown;
  _meta?: Meta;
}

/** What a server asks the client's model for (`sampling/createMessage` params). */
export interface CreateMessageParams {
  messages: SamplingMessage[];
  /** The most tokens the model may produce. */
  maxTokens: number;
  systemPrompt?: string;
  /**
   * Which model the server would like (hints, and priorities of cost, speed and intelligence); the
   * client decides.
   */
  modelPreferences?: Record<string, unknown>;
  /**
   * Context from MCP servers to attach to the prompt (default `none`; servers should use the
   * other two only when the client declares `sampling.context`).
   */
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  /** Tools the model may call (the client must declare `sampling.tools`). */
  tools?: Tool[];
  /** Whether and how the model should use `tools`. */
  toolChoice?: Record<string, unknown>;
  _meta?: Meta;
}

/** What the client's model answered to a sampling request. */
export interface CreateMessageResult {
  role: Role;
  content: unknown;
  /** The name of the model that answered. */
  model: string;
  /** Why the model stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, …). */
  stopReason?: string;
  _meta?: Meta;
}

/** An elicitation in form mode: a message and a flat JSON Schema of what to ask the user. */
export interface ElicitFormParams {
  mode?: 'form';
  message: string;
  /** The form: a flat JSON Schema object of primitive properties. */
  requestedSchema: Record<string, unknown>;
  _meta?: Meta;
}

/** An elicitation in URL mode: the user is sent to `url` (for what must not pass through the client, like credentials). */
export interface ElicitUrlParams {
  mode: 'url';
  message: string;
  url: string;
  /** 2025-11-25 only; 2026-07-28 correlates through requestState instead. */
  elicitationId?: string;
  _meta?: Meta;
}

/** An elicitation request's params, either mode. */
export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/** The user's answer to an elicitation: accepted (with `content` in form mode), declined or cancelled. */
export interface ElicitResult {
  /**
   * What the user did: `accept` (submitted), `decline` (refused) or `cancel` (dismissed without
   * choosing).
   */
  action: 'accept' | 'decline' | 'cancel';
  /** The submitted values, on `accept` in form mode. */
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Meta;
}

/** What a 2026-07-28 `subscriptions/listen` asks for (schema `SubscriptionFilter`). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/**
 * A result as it comes off the wire (schema `Result`): `_meta`, then the method's own
 * members. Members a revision adds (`resultType`, `ttlMs`) stay readable, as `unknown`.
 */
export interface Result {
  _meta?: Meta;
  [key: string]: unknown;
}

export interface PaginatedResult extends Result {
  nextCursor?: string;
}

/** The handshake's answer (2024-11-05 … 2025-11-25 schema `InitializeResult`). */
export interface InitializeResult extends Result {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

/** 2026-07-28 `server/discover` (schema `DiscoverResult`); the server's info travels in `_meta`. */
export interface DiscoverResult extends Result {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
}

export interface ListToolsResult extends PaginatedResult {
  tools: Tool[];
}
export interface ListPromptsResult extends PaginatedResult {
  prompts: Prompt[];
}
export interface ListResourcesResult extends PaginatedResult {
  resources: Resource[];
}
export interface ListResourceTemplatesResult extends PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}
export interface CompleteResult extends Result {
  completion: Completion;
}

/** 2026-07-28: one request of an `input_required` result (schema `InputRequest`: elicitation, sampling or roots). */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** 2026-07-28 (schema `InputRequiredResult`, mrtr.mdx): answers are needed before the request can complete. */
export interface InputRequiredResult extends Result {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
}
