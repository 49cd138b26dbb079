/**
 * The MCP Apps extension's wire vocabulary (SEP-1865, ext-apps specification 2026-01-26):
 * its identifier, the `ui://` scheme, the HTML profile MIME type, and the `_meta.ui` shapes a
 * tool and a UI resource carry. Shared by the server side (this folder) and the client
 * (src/client/apps.ts).
 */

/** §Extension Identifier: the key under `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** §UI Resource Format: the MIME type of an HTML UI resource (the only one defined so far). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** §UI Resource Format: every UI resource URI starts with it. */
export const UI_SCHEME = 'ui://';

/** §Resource Discovery: the flat tool `_meta` key older hosts read (deprecated, but still defined). */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** §Resource Discovery, Visibility: who may see and call a tool (default both). */
export type AppVisibility = 'model' | 'app';

/** The tool's `_meta.ui` (McpUiToolMeta). */
export interface AppToolMeta {
  /** The `ui://` URI of the tool's UI resource. */
  resourceUri?: string;
  /** Who may see and call the tool: the model, the app (its UI), or both (the default). */
  visibility?: AppVisibility[];
}

/** The origins a UI may reach (McpUiResourceCsp); each entry an origin, `https://*.example.com` allowed. */
export interface AppCsp {
  /** fetch/XHR/WebSocket (CSP `connect-src`). */
  connectDomains?: string[];
  /** Scripts, images, styles, fonts, media (`img-src`, `script-src`, `style-src`, `font-src`, `media-src`). */
  resourceDomains?: string[];
  /** Nested iframes (`frame-src`). */
  frameDomains?: string[];
  /** Allowed base URIs of the document (`base-uri`). */
  baseUriDomains?: string[];
}

/** Browser capabilities the UI asks for (Permission Policy features); hosts MAY grant them. */
export interface AppPermissions {
  /** The camera. */
  camera?: Record<string, never>;
  /** The microphone. */
  microphone?: Record<string, never>;
  /** The device's location. */
  geolocation?: Record<string, never>;
  /** Writing to the clipboard. */
  clipboardWrite?: Record<string, never>;
}

/** The resource's `_meta.ui` (UIResourceMeta), on its listing entry and on its read content. */
export interface AppResourceMeta {
  /** The origins the UI may reach; hosts allow nothing undeclared. */
  csp?: AppCsp;
  /** The browser capabilities the UI asks for. */
  permissions?: AppPermissions;
  /** A dedicated sandbox origin; its format is host-dependent. */
  domain?: string;
  /** true: the host draws a border and background; false: none; absent: the host decides. */
  prefersBorder?: boolean;
}

export const CSP_KEYS: readonly (keyof AppCsp)[] = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'];
export const PERMISSION_KEYS: readonly (keyof AppPermissions)[] = ['camera', 'microphone', 'geolocation', 'clipboardWrite'];
export const VISIBILITIES: readonly AppVisibility[] = ['model', 'app'];
