/**
 * Request guards, Hono-style: each either answers the request (and returns true) or lets it
 * pass (false). Runtime-neutral.
 */
import type { HttpExchange } from './exchange.js';
import type { ResolvedOptions } from './options.js';
import { replyError } from './status.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Splits a Host value into a lower-case hostname (IPv6 kept in brackets) and a port string. */
function splitHost(host: string): { name: string; port: string } {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return { name: h, port: '' };
    return { name: h.slice(0, end + 1), port: h.slice(end + 1).replace(/^:/, '') };
  }
  const colon = h.lastIndexOf(':');
  return colon < 0 ? { name: h, port: '' } : { name: h.slice(0, colon), port: h.slice(colon + 1) };
}

function hostAllowed(host: string, allowed: ReadonlySet<string>): boolean {
  const { name, port } = splitHost(host);
  // An entry without a port allows the hostname on any port.
  return allowed.has(port === '' ? name : `${name}:${port}`) || allowed.has(name);
}

/** The last Host checked against loopback: a client sends the same one on every request. */
let lastLoopback: { host: string; port: number | undefined; allowed: boolean } | undefined;

function loopbackHostAllowed(host: string, port: number | undefined): boolean {
  const last = lastLoopback;
  if (last !== undefined && last.host === host && last.port === port) return last.allowed;
  const allowed = loopbackHostCheck(host, port);
  lastLoopback = { host, port, allowed };
  return allowed;
}

function loopbackHostCheck(host: string, port: number | undefined): boolean {
  const p = splitHost(host);
  if (!LOOPBACK_NAMES.has(p.name)) return false;
  if (port === undefined) return true;
  return p.port === String(port) || (p.port === '' && port === 80);
}

/**
 * DNS-rebinding protection (2025-11-25 transports §Security Warning, 2026-07-28
 * streamable-http.mdx §Security & Endpoint: servers MUST validate Origin, 403 when it is
 * present and invalid). On at every entry point and every bind unless
 * `dnsRebindingProtection: false`: Host must name one of `allowedHosts`, or without that list a
 * loopback name (with the server's port when the socket is bound to loopback); a present Origin
 * must be one of `allowedOrigins`, or without that list an http(s) origin on an allowed host.
 */
export function guardHostAndOrigin(ex: HttpExchange, o: ResolvedOptions): boolean {
  if (guardHost(ex, o)) return true;
  if (o.dnsRebindingProtection === false) return false;
  const origin = ex.header('origin');
  if (origin === undefined) return false;
  if (!originAllowed(origin, o)) {
    replyError(ex, 403, `Forbidden: Origin '${origin}' not allowed`);
    return true;
  }
  return false;
}

/**
 * The Host half of `guardHostAndOrigin`, alone for public documents any web page may read
 * (the OAuth protected resource metadata, served with CORS).
 */
export function guardHost(ex: HttpExchange, o: ResolvedOptions): boolean {
  if (o.dnsRebindingProtection === false) return false;
  const host = ex.header('host');
  const hostOk =
    host !== undefined && (o.allowedHosts !== undefined ? hostAllowed(host, o.allowedHosts) : loopbackHostAllowed(host, ex.loopbackPort));
  if (!hostOk) {
    const which = host === undefined ? 'missing' : `'${host}' not allowed`;
    const fix =
      o.allowedHosts === undefined ? ': only localhost, 127.0.0.1 and [::1] are allowed until allowedHosts names this server' : '';
    replyError(ex, 403, `Forbidden: Host header ${which}${fix}`);
    return true;
  }
  return false;
}

function originAllowed(origin: string, o: ResolvedOptions): boolean {
  const value = origin.trim().toLowerCase().replace(/\/$/, '');
  if (o.allowedOrigins !== undefined) return o.allowedOrigins.has(value);
  let url: URL;
  try {
    url = new URL(value); // `null` (opaque origins) fails here and is refused
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return o.allowedHosts !== undefined ? hostAllowed(url.host, o.allowedHosts) : LOOPBACK_NAMES.has(url.hostname);
}

/** What the Accept header allows. Missing Accept and `*\/*` allow both. */
export interface Accepts {
  json: boolean;
  sse: boolean;
}

const BOTH: Accepts = Object.freeze({ json: true, sse: true });
/** Clients send the same few Accept values over and over: remember the parsed ones (bounded). */
const acceptCache = new Map<string, Accepts>();

export function parseAccept(accept: string | undefined): Accepts {
  if (accept === undefined) return BOTH;
  let a = acceptCache.get(accept);
  if (a === undefined) {
    a = Object.freeze(parseAcceptValue(accept));
    if (acceptCache.size >= 64) acceptCache.clear();
    acceptCache.set(accept, a);
  }
  return a;
}

function parseAcceptValue(accept: string): Accepts {
  if (accept.trim() === '') return BOTH;
  let json = false;
  let sse = false;
  for (const part of accept.split(',')) {
    const [rangeRaw, ...params] = part.split(';');
    const range = (rangeRaw ?? '').trim().toLowerCase();
    // q=0 means "not acceptable" (RFC 9110 §12.5.1)
    if (params.some((p) => /^\s*q\s*=\s*0(\.0{0,3})?\s*$/i.test(p))) continue;
    if (range === '*/*') json = sse = true;
    else if (range === 'application/json' || range === 'application/*') json = true;
    else if (range === 'text/event-stream' || range === 'text/*') sse = true;
  }
  return { json, sse };
}

/** Whether Accept names text/event-stream itself (wildcards do not count), with q > 0. */
export function namesEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.split(';');
    if (range?.trim().toLowerCase() !== 'text/event-stream') continue;
    if (!params.some((p) => /^\s*q\s*=\s*0(\.0{0,3})?\s*$/i.test(p))) return true;
  }
  return false;
}

/** POST bodies must be JSON (every transport revision); 415 otherwise. */
export function guardContentType(ex: HttpExchange): boolean {
  const ct = ex.header('content-type');
  if (ct === 'application/json') return false; // what nearly every client sends: nothing to parse
  const media = ct === undefined ? '' : (ct.split(';')[0] ?? '').trim().toLowerCase();
  if (media === 'application/json') return false;
  replyError(ex, 415, 'Unsupported Media Type: Content-Type must be application/json');
  return true;
}
