/**
 * Wire types shared by both eras, written from `schema/<rev>/schema.json`. They describe
 * the newest shape of each type; the server leaves out what an older revision lacks.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
export type Meta = Record<string, unknown>;

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface ClientCapabilities {
  experimental?: Record<string, object>;
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  tasks?: object;
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  experimental?: Record<string, object>;
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
export const LOGGING_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export type Role = 'user' | 'assistant';

export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;

export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ResourceLink {
  type: 'resource_link';
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

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** 2025-11-25: whether the tool may or must run as a task (experimental tasks). */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: Meta;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Meta;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

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

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
}

export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}

export interface SamplingMessage {
  role: Role;
  content: unknown;
  _meta?: Meta;
}

export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: Record<string, unknown>;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  tools?: Tool[];
  toolChoice?: Record<string, unknown>;
  _meta?: Meta;
}

export interface CreateMessageResult {
  role: Role;
  content: unknown;
  model: string;
  stopReason?: string;
  _meta?: Meta;
}

export interface ElicitFormParams {
  mode?: 'form';
  message: string;
  requestedSchema: Record<string, unknown>;
  _meta?: Meta;
}

export interface ElicitUrlParams {
  mode: 'url';
  message: string;
  url: string;
  /** 2025-11-25 only; 2026-07-28 correlates through requestState instead. */
  elicitationId?: string;
  _meta?: Meta;
}

export type ElicitParams = ElicitFormParams | ElicitUrlParams;

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
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
