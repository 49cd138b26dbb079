/**
 * MCP Apps on the client (the host's side; ext-apps specification 2026-01-26): declaring
 * support (§Client (Host) Capabilities: the MIME types it renders), finding a tool's UI
 * (§Resource Discovery: `_meta.ui.resourceUri`, else the deprecated `_meta["ui/resourceUri"]`),
 * and reading it through `resources/read` (§UI Resource Format), with its `_meta.ui` taken from
 * the content item, else from the resource's listing entry (draft §Metadata Location).
 */
import { base64ToBytes } from '../protocol/base64.js';
import { JanusError } from '../protocol/errors.js';
import type { ReadResourceResult, Resource, ResourceContents, Tool } from '../protocol/types.js';
import { isAppMimeType, resourceMetaProblem, uiUriProblem, visibilityProblem } from '../extensions/apps/validate.js';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  LEGACY_RESOURCE_URI_KEY,
  VISIBILITIES,
  type AppCsp,
  type AppPermissions,
  type AppResourceMeta,
  type AppVisibility,
} from '../extensions/apps/wire.js';
import type { CallOptions } from './peer.js';

export { APP_MIME_TYPE, APPS_EXTENSION };

/**
 * The `extensions` entry that declares MCP Apps support, for `ConnectOptions.extensions`:
 * `connect(url, { extensions: { ...appsExtension() } })`.
 */
export function appsExtension(mimeTypes: readonly string[] = [APP_MIME_TYPE]): Record<string, object> {
  return { [APPS_EXTENSION]: { mimeTypes: [...mimeTypes] } };
}

/** A tool's link to its UI. */
export interface AppLink {
  /** The `ui://` URI of the tool's UI resource. */
  readonly resourceUri: string;
  /** Who may see and call the tool; `['model', 'app']` when the tool does not say (§Visibility). */
  readonly visibility: readonly AppVisibility[];
}

/** A tool's UI as read. */
export interface AppResource {
  /** The tool's name. */
  readonly tool: string;
  /** The UI resource's `ui://` URI. */
  readonly uri: string;
  /** The resource's MIME type. */
  readonly mimeType: string;
  /** The page (from `text`, or `blob` decoded as UTF-8). */
  readonly html: string;
  /** Who may see and call the tool (`['model', 'app']` when the tool does not say). */
  readonly visibility: readonly AppVisibility[];
  /** The `_meta.ui` in force: the content item's, else the listing entry's, else `{}`. */
  readonly meta: AppResourceMeta;
  /** The origins the UI may reach (from `meta`). */
  readonly csp?: AppCsp;
  /** The browser capabilities the UI asks for (from `meta`). */
  readonly permissions?: AppPermissions;
  /** The dedicated sandbox origin it asks for, in the host's format (from `meta`). */
  readonly domain?: string;
  /** Whether the host should draw a border and background (from `meta`; absent: the host decides). */
  readonly prefersBorder?: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tool's UI link, or undefined when it has none; a malformed link is a JanusError 'PROTOCOL'. */
export function appOf(tool: Tool): AppLink | undefined {
  const meta = isRecord(tool?._meta) ? tool._meta : {};
  const ui = isRecord(meta.ui) ? meta.ui : {};
  const uri = ui.resourceUri ?? meta[LEGACY_RESOURCE_URI_KEY];
  if (uri === undefined) return undefined;
  const problem = uiUriProblem(uri) ?? (ui.visibility === undefined ? undefined : visibilityProblem(ui.visibility));
  if (problem) throw new JanusError('PROTOCOL', `tool "${tool.name}": ${problem}`);
  const visibility = (ui.visibility as AppVisibility[] | undefined) ?? VISIBILITIES;
  return { resourceUri: uri as string, visibility: [...visibility] };
}

/**
 * §Visibility: a host MUST NOT offer the model a tool whose visibility lacks "model". Never
 * throws, for filtering whole lists: a visibility list without "model" hides the tool even
 * when the rest of its link is malformed.
 */
export function visibleToModel(tool: Tool): boolean {
  const ui = isRecord(tool?._meta) && isRecord(tool._meta.ui) ? tool._meta.ui : {};
  return !Array.isArray(ui.visibility) || ui.visibility.includes('model');
}

/** What `readApp` needs of a client. */
export interface AppSource {
  listAllTools(): Promise<Tool[]>;
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  listResources(params?: { cursor?: string }): Promise<{ resources: Resource[]; nextCursor?: string }>;
}

/** Reads a tool's UI (by the tool, or its name from `tools/list`). JanusError 'PROTOCOL' when it has none, or it is not an MCP App. */
export async function readApp(client: AppSource, toolOrName: Tool | string, options: CallOptions = {}): Promise<AppResource> {
  const tool = typeof toolOrName === 'string' ? await findTool(client, toolOrName) : toolOrName;
  const link = appOf(tool);
  if (link === undefined) throw new JanusError('PROTOCOL', `tool "${tool.name}" has no UI (no _meta.ui.resourceUri)`);
  const uri = link.resourceUri;
  const result = await client.readResource(uri, options);
  const content = (Array.isArray(result?.contents) ? result.contents : []).find((c) => c?.uri === uri);
  if (content === undefined) throw new JanusError('PROTOCOL', `resources/read of "${uri}" returned no content for that URI`);
  if (!isAppMimeType(content.mimeType)) {
    throw new JanusError(
      'PROTOCOL',
      `the UI "${uri}" of tool "${tool.name}" is ${JSON.stringify(content.mimeType ?? null)}, not an MCP App (${APP_MIME_TYPE})`,
    );
  }
  const html = htmlOf(uri, content);
  const meta = uiMeta(content._meta) ?? (await listedMeta(client, uri)) ?? {};
  const problem = resourceMetaProblem(meta, 'ignore');
  if (problem) throw new JanusError('PROTOCOL', `the UI "${uri}": ${problem}`);
  const app: AppResource = { tool: tool.name, uri, mimeType: content.mimeType!, html, visibility: link.visibility, meta };
  return { ...app, ...pickMeta(meta) };
}

async function findTool(client: AppSource, name: string): Promise<Tool> {
  const tool = (await client.listAllTools()).find((t) => t.name === name);
  if (tool === undefined) throw new JanusError('PROTOCOL', `the server lists no tool "${name}"`);
  return tool;
}

function htmlOf(uri: string, content: ResourceContents): string {
  if ('text' in content && typeof content.text === 'string') return content.text;
  if ('blob' in content && typeof content.blob === 'string') {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(content.blob));
    } catch (cause) {
      throw new JanusError('PROTOCOL', `the UI "${uri}" has a blob that is not base64 UTF-8 HTML`, { cause });
    }
  }
  throw new JanusError('PROTOCOL', `the UI "${uri}" has neither text nor blob`);
}

function uiMeta(meta: unknown): Record<string, unknown> | undefined {
  return isRecord(meta) && meta.ui !== undefined ? (meta.ui as Record<string, unknown>) : undefined;
}

/** The listing entry's `_meta.ui`, following cursors; servers MAY leave UI resources unlisted. */
async function listedMeta(client: AppSource, uri: string): Promise<Record<string, unknown> | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const r = await client.listResources(cursor === undefined ? {} : { cursor });
    const entry = r.resources.find((e) => e.uri === uri);
    if (entry) return uiMeta(entry._meta);
    if (!r.nextCursor) return undefined;
    cursor = r.nextCursor;
  }
  return undefined;
}

function pickMeta(meta: AppResourceMeta): Partial<AppResource> {
  const out: { -readonly [K in keyof AppResource]?: AppResource[K] } = {};
  if (meta.csp !== undefined) out.csp = meta.csp;
  if (meta.permissions !== undefined) out.permissions = meta.permissions;
  if (meta.domain !== undefined) out.domain = meta.domain;
  if (meta.prefersBorder !== undefined) out.prefersBorder = meta.prefersBorder;
  return out;
}
