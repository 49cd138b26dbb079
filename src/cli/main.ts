#!/usr/bin/env node
/**
 * `janus-mcp`: the command line, a thin layer over the public API. Parsing, formatting and
 * prompting live here; the protocol is the client's and the server's. Exit codes: 0 success, 1 a failed call or tool, 2 a usage error.
 */
import { JanusError } from '../errors/index.js';
import { UsageError, packageVersion } from './args.js';
import { callVerb } from './call.js';
import { discoverVerb, listVerb } from './inspect.js';
import { installVerb } from './install/verb.js';
import { processOutput, type Output } from './output.js';
import { proxyVerb } from './proxy.js';
import { serveVerb } from './serve.js';

const VERBS: Record<string, (args: string[], out: Output) => Promise<number>> = {
  discover: discoverVerb,
  list: listVerb,
  call: callVerb,
  serve: (args, out) => serveVerb('serve', args, out),
  dev: (args, out) => serveVerb('dev', args, out),
  proxy: proxyVerb,
  install: installVerb,
};

async function run(argv: string[], out: Output = processOutput): Promise<number> {
  const [verb, ...rest] = argv;
  try {
    if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help')
      return out.help(rest[0] !== undefined && VERBS[rest[0]] ? rest[0] : undefined);
    if (verb === '--version' || verb === '-v') {
      out.stdout(packageVersion());
      return 0;
    }
    const runVerb = Object.hasOwn(VERBS, verb) ? VERBS[verb] : undefined;
    if (!runVerb) throw new UsageError(verb.startsWith('-') ? `unknown option "${verb}"` : `unknown verb "${verb}"`);
    return await runVerb(rest, out);
  } catch (e) {
    if (e instanceof UsageError) {
      out.stderr(`janus-mcp: ${e.message}`);
      out.stderr(`Run 'janus-mcp ${e.verb ? `${e.verb} ` : ''}--help' for usage.`);
      return 2;
    }
    out.stderr(`janus-mcp: ${e instanceof Error ? inCliWords(e) : String(e)}`);
    return 1;
  }
}

/**
 * A client timeout names the library's option (`timeoutMs`); on the command line the knob is
 * `--timeout`, in seconds.
 */
function inCliWords(e: Error): string {
  if (!(e instanceof JanusError && e.code === 'TIMEOUT')) return e.message;
  return e.message
    .replace('raise timeoutMs (in the connect options, or for this call)', 'raise --timeout SECONDS (default 60)')
    .replace(/\btimeoutMs\b/g, '--timeout');
}

/** Exits once stdout and stderr have taken what was written (pipes may be asynchronous). */
async function exit(code: number): Promise<never> {
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit(code);
}

// A reader that stops early (`janus-mcp list … | head -1`) is not a failure of the command.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

await exit(await run(process.argv.slice(2)));
