/**
 * `proxy [--port P | --stdio] [--host H] [--root DIR]… [--continuation-timeout SECONDS]
 * (--upstream URL | -- COMMAND ARGS…)`: one upstream server served to clients of every revision
 * by `createProxy` (janus-mcp/proxy), over Streamable HTTP or stdio. The proxy is loaded when
 * this verb runs, so every other verb works without it.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { protectStdout, serveStdio } from '../stdio/index.js';
import { serveHttp } from '../transports/http/index.js';
import { CONNECT_OPTIONS, UsageError, connectOptions, parseVerb, port } from './args.js';
import { signalled, stdinEndedOnSignal } from './lifecycle.js';
import type { Output } from './output.js';

const PROXY_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  stdio: { type: 'boolean' },
  upstream: { type: 'string' },
  root: { type: 'string', multiple: true },
  'continuation-timeout': { type: 'string' },
  header: CONNECT_OPTIONS.header,
  'protocol-version': CONNECT_OPTIONS['protocol-version'],
  era: CONNECT_OPTIONS.era,
  timeout: CONNECT_OPTIONS.timeout,
  help: CONNECT_OPTIONS.help,
} as const;

export async function proxyVerb(args: string[], out: Output): Promise<number> {
  // Everything after `--` is the upstream command, its own flags included.
  const dashes = args.indexOf('--');
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const command = dashes === -1 ? [] : args.slice(dashes + 1);
  const { values, positionals } = parseVerb('proxy', own, PROXY_OPTIONS);
  if (values.help) return out.help('proxy');
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (an upstream command goes after --)`, 'proxy');
  if ((values.upstream === undefined) === (command.length === 0)) {
    throw new UsageError('name the upstream: --upstream URL, or -- COMMAND ARGS… (one of them)', 'proxy');
  }
  if (values.stdio && (values.port !== undefined || values.host !== undefined)) {
    throw new UsageError('--stdio serves stdin/stdout: it takes no --port or --host', 'proxy');
  }
  const listen = { host: values.host ?? '127.0.0.1', port: values.port === undefined ? 0 : port('proxy', values.port) };
  const timeout = values['continuation-timeout'];
  const continuationTimeoutMs = timeout === undefined ? undefined : continuationTimeout(timeout);
  const upstreamOptions = connectOptions('proxy', values);
  // stdout carries protocol only: what else prints goes to stderr.
  if (values.stdio) protectStdout();

  const { createProxy } = await loadProxy();
  const roots = (values.root ?? []).map((r) => ({ uri: /^file:\/\//i.test(r) ? r : pathToFileURL(resolve(r)).href }));
  const proxy = await createProxy(values.upstream ?? command, {
    connect: upstreamOptions,
    roots,
    ...(continuationTimeoutMs === undefined ? {} : { continuationTimeoutMs }),
  });
  try {
    if (values.stdio) {
      const connection = await serveStdio(proxy.server, { input: stdinEndedOnSignal() });
      await connection.closed;
    } else {
      const http = await serveHttp(proxy.server, listen);
      out.stderr(`janus-mcp: proxy for ${values.upstream ?? command.join(' ')} listening on ${http.url.href}`);
      await signalled();
      await http.close();
    }
    return 0;
  } finally {
    await proxy.close();
  }
}

/** `--continuation-timeout SECONDS` in milliseconds. */
function continuationTimeout(text: string): number {
  const ms = Math.round(Number(text) * 1000);
  if (text.trim() === '' || !Number.isFinite(ms) || ms < 1 || ms > 2 ** 31 - 1) {
    throw new UsageError(`--continuation-timeout needs a number of seconds above 0 (at most 24 days), got "${text}"`, 'proxy');
  }
  return ms;
}

async function loadProxy(): Promise<typeof import('../proxy/index.js')> {
  try {
    return await import('../proxy/index.js');
  } catch (e) {
    throw new Error(
      `the proxy is not available in this build (janus-mcp/proxy could not be loaded: ${e instanceof Error ? e.message : String(e)})`,
    );
  }
}
