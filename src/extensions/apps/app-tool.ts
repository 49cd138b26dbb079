/**
 * The MCP Apps extension (`apps()`, `janus-mcp/apps`): a tool and the UI resource it renders
 * with, registered together by `tool` (ext-apps
 * specification 2026-01-26 §UI Resource Format, §Resource Discovery). The tool carries the
 * link in `_meta.ui.resourceUri` (and the deprecated flat `_meta["ui/resourceUri"]` older hosts
 * read); the resource is `text/html;profile=mcp-app` with its `_meta.ui` (csp, permissions,
 * domain, prefersBorder) on its listing entry and on its read content (draft §Metadata
 * Location: hosts check both). The server advertises `io.modelcontextprotocol/ui` once.
 */
import { JanusError } from '../../protocol/errors.js';
import type { Meta, ResourceContents } from '../../protocol/types.js';
import type { RequestContext } from '../../server/context.js';
import type { ExtensionHost, ExtensionServer, Registration, ServerExtension } from '../../server/extension.js';
import type { ResourceConfig, ResourceReader } from '../../server/features/resources.js';
import type { ToolConfig, ToolHandler } from '../../server/features/tools.js';
import type { SchemaInput } from '../../server/schema/types.js';
import { resourceMetaProblem, uiUriProblem, visibilityProblem } from './validate.js';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  LEGACY_RESOURCE_URI_KEY,
  type AppCsp,
  type AppPermissions,
  type AppResourceMeta,
  type AppToolMeta,
  type AppVisibility,
} from './wire.js';

/** The HTML of a UI: fixed text, or made on each `resources/read`. */
export type AppHtml = string | ((ctx: RequestContext) => string | Promise<string>);

/**
 * A tool's UI: the `ui://` resource the host shows with it (its page, or a link to a UI resource
 * registered elsewhere), how the host should sandbox it, and who may see the tool.
 */
export interface AppUi {
  /** The UI resource's URI: `ui://…`. */
  uri: string;
  /**
   * The page (a whole HTML5 document). Without it the tool links to a UI resource registered
   * already (by another `appTool`, or `server.resource`): several tools may share one UI.
   */
  html?: AppHtml;
  /** The resource's name (default: the tool's name), title and description. */
  name?: string;
  /** The resource's title, for display. */
  title?: string;
  /** The resource's description. */
  description?: string;
  /** Origins the UI may reach; hosts allow nothing undeclared. */
  csp?: AppCsp;
  /** Browser capabilities the UI asks for. */
  permissions?: AppPermissions;
  /** A dedicated sandbox origin, in the host's format. */
  domain?: string;
  /** Whether the host should draw a border and background around the UI (absent: the host decides). */
  prefersBorder?: boolean;
  /** Who may see and call the tool (default both): `['app']` hides it from the model; hosts enforce it. */
  visibility?: AppVisibility[];
}

/** An app tool's config: a tool's config plus its `ui`. */
export type AppToolConfig<
  I extends SchemaInput | undefined = SchemaInput | undefined,
  O extends SchemaInput | undefined = SchemaInput | undefined,
> = ToolConfig<I, O> & { ui: AppUi };

/** What `update` takes: tool fields replace, `ui` fields merge into the current `ui`. */
export type AppToolPatch<C extends AppToolConfig = AppToolConfig> = Partial<Omit<C, 'ui'>> & { ui?: Partial<AppUi> };

/** Like `Registration`: `update` re-validates and changes tool and resource together; `remove` drops both. */
export interface AppToolRegistration<C extends AppToolConfig = AppToolConfig> {
  /**
   * Changes the tool and its UI resource together: tool fields replace, `ui` fields merge;
   * validated again, and clients are told.
   */
  update(patch: AppToolPatch<C>): void;
  /** Removes the tool and the UI resource it registered; clients are told. */
  remove(): void;
}

/**
 * The Apps extension: advertised under `capabilities.extensions` where the revision has it
 * (SEP-2133 §Server Capabilities: no settings), and the way to register app tools.
 */
export class AppsExtension implements ServerExtension {
  readonly id = APPS_EXTENSION;
  private server: ExtensionServer | undefined;

  settings(): Record<string, unknown> {
    return {};
  }

  install(host: ExtensionHost): void {
    if (this.server !== undefined) throw new JanusError('REGISTRATION', 'an apps() extension serves one server: make one per server');
    this.server = host.server;
  }

  /**
   * Registers a tool with its interactive UI: the tool links to `ui.uri` (`ui://…`) in
   * `_meta.ui.resourceUri`, and the HTML is served there as `text/html;profile=mcp-app` with its
   * csp, permissions, domain and prefersBorder in `_meta.ui`. `update` and `remove` handle both.
   *
   * ```ts
   * ui.tool('clock', { ui: { uri: 'ui://clock/view.html', html: '<!doctype html>…' } }, () => new Date().toISOString());
   * ```
   */
  tool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    config: AppToolConfig<I, O>,
    handler: ToolHandler<I, O>,
  ): AppToolRegistration<AppToolConfig<I, O>> {
    if (this.server === undefined) {
      throw new JanusError('REGISTRATION', 'add the apps extension to a server first: createServer({ extensions: [ui] })');
    }
    return registerAppTool(this.server, name, config, handler);
  }
}

/** A checked configuration, split into what the tool and the resource get. */
interface Plan {
  readonly ui: AppUi;
  readonly tool: ToolConfig;
  /** Undefined: the tool links to a resource it does not own. */
  readonly resource: ResourceConfig | undefined;
  readonly meta: AppResourceMeta | undefined;
}

const RESOURCE_ONLY: readonly (keyof AppUi)[] = ['name', 'title', 'description', 'csp', 'permissions', 'domain', 'prefersBorder'];

function plan(name: string, config: AppToolConfig): Plan {
  const fail = (problem: string) => new JanusError('REGISTRATION', `app tool "${name}": ${problem}`);
  const { ui, ...tool } = config ?? ({} as AppToolConfig);
  if (typeof ui !== 'object' || ui === null) throw fail('needs `ui` with at least its `uri`');
  const problem = uiUriProblem(ui.uri) ?? (ui.visibility === undefined ? undefined : visibilityProblem(ui.visibility));
  if (problem) throw fail(problem);
  if (tool._meta !== undefined && (Object.hasOwn(tool._meta, 'ui') || Object.hasOwn(tool._meta, LEGACY_RESOURCE_URI_KEY))) {
    throw fail(`set the UI link with \`ui\`, not _meta.ui or _meta["${LEGACY_RESOURCE_URI_KEY}"]`);
  }
  const link: AppToolMeta = { resourceUri: ui.uri };
  if (ui.visibility !== undefined) link.visibility = [...ui.visibility];
  const toolConfig: ToolConfig = { ...tool, _meta: { ...tool._meta, ui: link, [LEGACY_RESOURCE_URI_KEY]: ui.uri } };
  if (ui.html === undefined) {
    const misplaced = RESOURCE_ONLY.find((k) => ui[k] !== undefined);
    if (misplaced) throw fail(`ui.${misplaced} describes the UI resource: give it with ui.html, on the tool that registers the resource`);
    return { ui, tool: toolConfig, resource: undefined, meta: undefined };
  }
  if (typeof ui.html !== 'string' && typeof ui.html !== 'function') throw fail('ui.html must be a string or a function returning one');
  const given = resourceMeta(ui);
  const metaProblem = given === undefined ? undefined : resourceMetaProblem(given, 'refuse');
  if (metaProblem) throw fail(metaProblem);
  // A copy: what was checked is what is sent, whatever the caller later does to its objects.
  const meta = given === undefined ? undefined : structuredClone(given);
  const resource: ResourceConfig = {
    name: ui.name ?? name,
    title: ui.title,
    description: ui.description,
    mimeType: APP_MIME_TYPE,
    _meta: meta === undefined ? undefined : ({ ui: meta } as Meta),
  };
  return { ui, tool: toolConfig, resource, meta };
}

function resourceMeta(ui: AppUi): AppResourceMeta | undefined {
  const meta: AppResourceMeta = {};
  if (ui.csp !== undefined) meta.csp = ui.csp;
  if (ui.permissions !== undefined) meta.permissions = ui.permissions;
  if (ui.domain !== undefined) meta.domain = ui.domain;
  if (ui.prefersBorder !== undefined) meta.prefersBorder = ui.prefersBorder;
  return Object.keys(meta).length === 0 ? undefined : meta;
}

/**
 * Registers the tool and (with `ui.html`) its UI resource; validates everything first, so a
 * refused registration leaves nothing behind.
 */
function registerAppTool<I extends SchemaInput | undefined, O extends SchemaInput | undefined>(
  host: ExtensionServer,
  name: string,
  config: AppToolConfig<I, O>,
  handler: ToolHandler<I, O>,
): AppToolRegistration<AppToolConfig<I, O>> {
  let current = plan(name, config as AppToolConfig);
  let whole: AppToolConfig = config as AppToolConfig;
  // The resource's reader reads the newest plan: an update changes the page without re-registering it.
  const read: ResourceReader = async (uri, ctx) => readContents(name, uri, current, ctx);
  const linkTarget = (p: Plan) => {
    if (p.resource === undefined && !host.hasResource(p.ui.uri)) {
      throw new JanusError('REGISTRATION', `app tool "${name}": no resource "${p.ui.uri}" is registered; give ui.html to register it`);
    }
  };
  linkTarget(current);
  let resource = current.resource === undefined ? undefined : host.resource(current.ui.uri, current.resource, read);
  // The tool's config is the app tool's without `ui`: the same input and output schemas.
  let tool: Registration<ToolConfig<I, O>>;
  try {
    tool = host.tool(name, current.tool as ToolConfig<I, O>, handler);
  } catch (e) {
    resource?.remove();
    throw e;
  }
  return {
    update(patch) {
      const merged = { ...whole, ...patch, ui: { ...whole.ui, ...patch.ui } } as AppToolConfig;
      if (merged.ui.html === undefined && resource !== undefined) {
        throw new JanusError(
          'REGISTRATION',
          `app tool "${name}": ui.html cannot be dropped from the tool that registered "${current.ui.uri}"`,
        );
      }
      const next = plan(name, merged);
      const sameUri = next.ui.uri === current.ui.uri;
      linkTarget(next);
      // A new URI gets its resource first (refused if taken), and loses it again if the tool is refused.
      const added = next.resource !== undefined && !(sameUri && resource) ? host.resource(next.ui.uri, next.resource, read) : undefined;
      try {
        tool.update(next.tool as ToolConfig<I, O>);
      } catch (e) {
        added?.remove();
        throw e;
      }
      if (added) {
        resource?.remove();
        resource = added;
      } else if (next.resource !== undefined) {
        resource?.update(next.resource);
      }
      current = next;
      whole = merged;
    },
    remove() {
      tool.remove();
      resource?.remove();
    },
  };
}

/** §UI Resource Format: the content is the HTML as text, with the resource's MIME type and `_meta.ui`. */
async function readContents(name: string, uri: string, p: Plan, ctx: RequestContext): Promise<ResourceContents> {
  const html = typeof p.ui.html === 'function' ? await p.ui.html(ctx) : p.ui.html;
  if (typeof html !== 'string') throw new JanusError('SCHEMA', `the ui.html of app tool "${name}" returned ${typeof html}, not a string`);
  const content: ResourceContents = { uri, mimeType: APP_MIME_TYPE, text: html };
  if (p.meta !== undefined) content._meta = { ui: p.meta } as Meta;
  return content;
}
