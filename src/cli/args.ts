/**
 * Argument parsing shared by the verbs, on Node's `util.parseArgs`: a usage mistake is a
 * `UsageError` (exit code 2), never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ConnectOptions } from '../client/index.js';
import { ALL_VERSIONS, isKnownVersion } from '../protocol/index.js';

/** A mistake in the command line: reported in one line with a hint to `--help`, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The verb whose `--help` the hint names. */
    readonly verb?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options of every verb that connects to a server. */
export const CONNECT_OPTIONS = {
  header: { type: 'string', multiple: true },
  'protocol-version': { type: 'string' },
  era: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** `parseArgs` with strict options and positionals; its errors become usage errors of `verb`. */
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>>;

export function parseVerb<O extends Options>(verb: string, args: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message.split('\n')[0]! : String(e), verb);
  }
}

interface ConnectValues {
  header?: string[];
  'protocol-version'?: string;
  era?: string;
  timeout?: string;
}

/** `--header K:V`, `--protocol-version`, `--era` and `--timeout SECONDS` as `connect()` options. */
export function connectOptions(verb: string, values: ConnectValues): ConnectOptions {
  const options: ConnectOptions = {
    clientInfo: { name: 'janus-mcp-cli', version: packageVersion() },
    // What the client skipped or dropped (a line on a stdio server's stdout that is not a message, say).
    onWarning: (message) => void process.stderr.write(`janus-mcp: warning: ${message}\n`),
  };
  if (values.header?.length) options.headers = Object.fromEntries(values.header.map((h) => header(verb, h)));
  const version = values['protocol-version'];
  if (version !== undefined) {
    if (!isKnownVersion(version)) throw new UsageError(`unknown protocol version "${version}" (known: ${ALL_VERSIONS.join(', ')})`, verb);
    options.protocolVersion = version;
  }
  if (values.era !== undefined) {
    if (values.era !== 'legacy' && values.era !== 'modern') throw new UsageError(`--era is legacy or modern, not "${values.era}"`, verb);
    options.era = values.era;
  }
  if (values.timeout !== undefined) options.timeoutMs = seconds(verb, '--timeout', values.timeout) * 1000;
  return options;
}

function header(verb: string, text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new UsageError(`--header needs NAME:VALUE, got "${text}"`, verb);
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

function seconds(verb: string, flag: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`${flag} needs a number of seconds, got "${text}"`, verb);
  return n;
}

/** The TARGET positional: a URL or a command line, as `connect()` takes them. */
export function target(verb: string, positionals: string[]): string {
  const first = positionals[0];
  if (first === undefined || first.trim() === '') throw new UsageError('missing TARGET (a URL or a command)', verb);
  return first;
}

/** `HOST:PORT` (`127.0.0.1:0`, `[::1]:3000`, `:3000`) for `--http`. */
export function hostPort(verb: string, text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text);
  const port = Number(m?.[3]);
  if (!m || !Number.isInteger(port) || port > 65535) throw new UsageError(`--http needs HOST:PORT, got "${text}"`, verb);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/** A TCP port for `--port`. */
export function port(verb: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new UsageError(`--port needs a port number, got "${text}"`, verb);
  return n;
}

let version: string | undefined;

/** This package's version, from the package.json above this file (found the same way from dist/ and from other build folders). */
export function packageVersion(): string {
  version ??= findVersion();
  return version;
}

function findVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; ) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'janus-mcp' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: one folder up
    }
    const up = new URL('..', dir);
    if (up.href === dir.href) return '0.0.0'; // the root
    dir = up;
  }
}
