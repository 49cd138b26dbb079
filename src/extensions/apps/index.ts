/**
 * `janus-mcp/apps`: MCP Apps (SEP-2133, `io.modelcontextprotocol/ui`), tools with an interactive
 * UI. Add the extension to a server, then register app tools through it:
 *
 * ```ts
 * import { createServer } from 'janus-mcp/server';
 * import { apps } from 'janus-mcp/apps';
 *
 * const ui = apps();
 * const server = createServer({ name: 'clock', version: '1.0.0', extensions: [ui] });
 * ui.tool('clock', { ui: { uri: 'ui://clock/view.html', html: '<!doctype html><p>…</p>' } }, () => new Date().toISOString());
 * ```
 *
 * @module janus-mcp/apps
 */
import { AppsExtension } from './app-tool.js';

export { AppsExtension, type AppToolConfig, type AppToolPatch, type AppToolRegistration, type AppUi, type AppHtml } from './app-tool.js';
export { APPS_EXTENSION, APP_MIME_TYPE } from './wire.js';
export type { AppCsp, AppPermissions, AppResourceMeta, AppToolMeta, AppVisibility } from './wire.js';

/** The Apps extension, for `createServer({ extensions: [apps()] })`: one per server. */
export function apps(): AppsExtension {
  return new AppsExtension();
}
