/** Resources and resource templates (docs/…/server/resources.mdx). */
import { JanusError } from '../../protocol/errors.js';
import type { Annotations, Icon, Meta, ReadResourceResult, Resource, ResourceContents, ResourceTemplate } from '../../protocol/types.js';
import type { RequestContext } from '../context.js';
import { bytesToBase64 } from '../../protocol/base64.js';
import type { Completer } from './completion.js';
import { isObject } from '../guards.js';
import { jsonProblem } from './json-value.js';
import { parseTemplate } from './template-syntax.js';
import { wireDefinition } from './wire-object.js';
import { extend } from '../../protocol/extend.js';

/** 2026-07-28 cache hints (server/utilities/caching.mdx). */
export interface CacheHint {
  /** How long the client may reuse the result, in milliseconds (0: not at all). */
  ttlMs: number;
  /**
   * Who may share the cached result: `public`, any user of a shared cache; `private`, this client
   * only.
   */
  scope: 'public' | 'private';
}

/**
 * How a resource is described: its name (required), presentation, MIME type, a cache hint and the
 * OAuth scopes it needs.
 */
export interface ResourceConfig {
  /** The resource's name, as `resources/list` shows it. */
  name: string;
  /** A human-readable name for display. */
  title?: string;
  /** What the resource holds. */
  description?: string;
  /** The MIME type of its contents; also given to the contents a reader returns as text or bytes. */
  mimeType?: string;
  /** Its size in bytes, if known, for the client to judge before reading. */
  size?: number;
  /** Hints: whom it is for, how important it is, when it last changed. */
  annotations?: Annotations;
  /** Icons for display. */
  icons?: Icon[];
  /** Sent as the resource's `_meta` in `resources/list`. */
  _meta?: Meta;
  /** Cache hint for `resources/read` of this resource on the modern wire. */
  cache?: CacheHint;
  /**
   * OAuth scopes a caller needs for this resource or template (`resources/read`, `resources/subscribe`), on top of the HTTP resource server's own
   * (`janus-mcp/http` option `auth`): a token without them gets 403 `insufficient_scope`
   * naming them. Ignored where the transport authenticates nobody (stdio, HTTP without `auth`).
   */
  scopes?: string[];
}

/**
 * What a resource reader returns: text, bytes, one or more contents, or the whole
 * `ReadResourceResult`.
 */
export type ResourceReturn = string | Uint8Array | ResourceContents | ResourceContents[] | ReadResourceResult;
/** The function that reads a fixed resource (`resources/read`) at `uri`. */
export type ResourceReader = (uri: string, ctx: RequestContext) => ResourceReturn | Promise<ResourceReturn>;

export interface ResourceEntry {
  readonly uri: string;
  readonly config: ResourceConfig;
  readonly read: ResourceReader;
  /** The newest wire shape; each revision picks the fields it defines. */
  readonly wire: Resource;
}

/**
 * How a resource template is described: as a resource, plus completions of its variables and the
 * concrete resources it lists.
 */
export interface TemplateConfig extends Omit<ResourceConfig, 'size'> {
  /** Completion of template variables, by variable name. */
  complete?: Record<string, Completer>;
  /** Concrete resources this template currently offers, merged into `resources/list`. */
  list?: () => Resource[] | Promise<Resource[]>;
}

/**
 * The function that reads a resource of a template: gets the URI and the template variables
 * matched in it.
 */
export type TemplateReader = (
  uri: string,
  variables: Record<string, string>,
  ctx: RequestContext,
) => ResourceReturn | Promise<ResourceReturn>;

export interface TemplateEntry {
  readonly uriTemplate: string;
  readonly config: TemplateConfig;
  readonly read: TemplateReader;
  readonly match: (uri: string) => Record<string, string> | undefined;
  readonly variables: readonly string[];
  /** The newest wire shape; each revision picks the fields it defines. */
  readonly wire: ResourceTemplate;
}

export function defineResource(uri: string, config: ResourceConfig, read: ResourceReader | string): ResourceEntry {
  if (!uri) throw new JanusError('REGISTRATION', 'a resource needs a URI');
  if (!config?.name) throw new JanusError('REGISTRATION', `resource "${uri}" needs a name`);
  const reader: ResourceReader = typeof read === 'string' ? () => read : read;
  if (typeof reader !== 'function') throw new JanusError('REGISTRATION', `resource "${uri}" needs a reader function or text`);
  const wire = wireDefinition<Resource>(`resource "${uri}"`, {
    uri,
    name: config.name,
    title: config.title,
    description: config.description,
    mimeType: config.mimeType,
    size: config.size,
    annotations: config.annotations,
    icons: config.icons,
    _meta: config._meta,
  });
  return { uri, config, read: reader, wire };
}

export function defineTemplate(uriTemplate: string, config: TemplateConfig, read: TemplateReader): TemplateEntry {
  if (!config?.name) throw new JanusError('REGISTRATION', `resource template "${uriTemplate}" needs a name`);
  if (typeof read !== 'function') throw new JanusError('REGISTRATION', `resource template "${uriTemplate}" needs a reader function`);
  const { match, variables } = compileTemplate(uriTemplate);
  const wire = wireDefinition<ResourceTemplate>(`resource template "${uriTemplate}"`, {
    uriTemplate,
    name: config.name,
    title: config.title,
    description: config.description,
    mimeType: config.mimeType,
    annotations: config.annotations,
    icons: config.icons,
    _meta: config._meta,
  });
  return { uriTemplate, config, read, match, variables, wire };
}

/**
 * RFC 6570 matching for the expressions resource URIs use: `{var}` (one segment),
 * `{+var}` / `{#var}` (reserved, may span `/`), `{/var}` (path segment), `{.var}` (label),
 * `{;var}` (path parameter) and `{?a,b}` / `{&a}` (query parameters, optional). A template
 * that is not valid RFC 6570 is refused here, at registration (template-syntax.ts).
 */
export function compileTemplate(template: string): { match: (uri: string) => Record<string, string> | undefined; variables: string[] } {
  const expressions = parseTemplate(template);
  if (typeof expressions === 'string') {
    throw new JanusError('REGISTRATION', `resource template "${template}" is not a valid RFC 6570 URI template: ${expressions}`);
  }
  const variables: string[] = [];
  const queryVars: string[] = [];
  let pattern = '^';
  let last = 0;
  for (const { operator: op, names, index, text } of expressions) {
    pattern += escapeRegExp(template.slice(last, index));
    last = index + text.length;
    if (op === '?' || op === '&') {
      queryVars.push(...names);
      variables.push(...names);
      pattern += '(?:[?&].*)?';
      continue;
    }
    for (const [i, name] of names.entries()) {
      variables.push(name);
      if (op === ';') {
        pattern += `;${escapeRegExp(name)}=?([^;/?#]*)`;
        continue;
      }
      const first = op === '/' || op === '#' || op === '.' ? op : '';
      const sep = i === 0 ? first : op === '/' || op === '.' ? op : ',';
      const value = op === '+' || op === '#' ? '(.+?)' : op === '.' ? '([^/?#,.]+)' : '([^/?#,]+)';
      pattern += escapeRegExp(sep) + value;
    }
  }
  pattern += `${escapeRegExp(template.slice(last))}$`;
  const re = new RegExp(pattern);
  const pathVars = variables.filter((v) => !queryVars.includes(v));
  return {
    variables,
    match(uri) {
      const m = re.exec(uri);
      if (!m) return undefined;
      const out: Record<string, string> = {};
      pathVars.forEach((v, i) => {
        out[v] = safeDecode(m[i + 1]!);
      });
      if (queryVars.length) {
        const q = uri.indexOf('?');
        if (q >= 0) {
          const params = new URLSearchParams(uri.slice(q + 1).split('#')[0]);
          for (const v of queryVars) {
            const val = params.get(v);
            if (val !== null) out[v] = val;
          }
        }
      }
      return out;
    },
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Normalizes what a reader returned into `ReadResourceResult` contents. Contents must be JSON
 * with a `uri` and a string `text` or `blob` each; anything else is a bug in the reader, thrown
 * as a `JanusError` (masked on the wire, reported to `onError`).
 */
export function toReadResult(uri: string, mimeType: string | undefined, value: ResourceReturn): ReadResourceResult {
  if (typeof value === 'string') return { contents: [withMime({ uri, text: value }, mimeType)] };
  if (value instanceof Uint8Array) return { contents: [withMime({ uri, blob: bytesToBase64(value) }, mimeType)] };
  const result: unknown = Array.isArray(value)
    ? { contents: value }
    : isObject(value) && typeof value.uri === 'string'
      ? { contents: [value] }
      : value;
  const problem = readProblem(result);
  if (problem) throw new JanusError('SCHEMA', `the reader of resource "${uri}" returned ${problem}`);
  return result as ReadResourceResult;
}

function readProblem(result: unknown): string | undefined {
  if (!isObject(result) || !Array.isArray(result.contents)) return 'nothing readable (text, bytes, contents or a ReadResourceResult)';
  const contents: unknown[] = result.contents;
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i];
    if (!isObject(c) || typeof c.uri !== 'string' || (typeof c.text !== 'string' && typeof c.blob !== 'string')) {
      return `contents[${i}] without a string "uri" and a string "text" or "blob"`;
    }
  }
  return jsonProblem(result);
}

function withMime<T extends ResourceContents>(c: T, mimeType: string | undefined): T {
  return mimeType ? extend(c, { mimeType }) : c;
}
