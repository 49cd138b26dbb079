/**
 * `install HOST SERVER [--name N] [--env K=V]… [--scope S] [--force] [--dry-run]`: adds a server
 * to a host's MCP config file (hosts.ts), merged with what is there (config-file.ts); `--print`
 * prints the entry instead, for any host.
 */
import { realpathSync } from 'node:fs';
import { UsageError, parseVerb } from '../args.js';
import type { Output } from '../output.js';
import { mergeEntry, readConfig, writeAtomically } from './config-file.js';
import { HOSTS, type Host, type Launch, type Platform, findHost, genericEntry, projectFolder } from './hosts.js';
import type { JsonObject } from './json-text.js';
import { buildLaunch } from './launch.js';

const INSTALL_OPTIONS = {
  name: { type: 'string' },
  env: { type: 'string', multiple: true },
  scope: { type: 'string' },
  project: { type: 'string' },
  serve: { type: 'boolean' },
  force: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  print: { type: 'boolean' },
  platform: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const PLATFORMS: readonly Platform[] = ['linux', 'darwin', 'win32'];
const isPlatform = (text: string): text is Platform => (PLATFORMS as readonly string[]).includes(text);

export async function installVerb(args: string[], out: Output): Promise<number> {
  // Everything after `--` is the server's command, its own flags included.
  const dashes = args.indexOf('--');
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const words = dashes === -1 ? [] : args.slice(dashes + 1);
  const { values, positionals } = parseVerb('install', own, INSTALL_OPTIONS);
  if (values.help) return out.help('install');

  // HOST SERVER, or HOST -- COMMAND…; with --print the host may be left out.
  const wanted = dashes === -1 ? 2 : 1;
  const hostId = positionals.length === wanted || !values.print ? positionals[0] : undefined;
  const serverArgs = positionals.slice(hostId === undefined ? 0 : 1);
  if (hostId === undefined && !values.print) throw new UsageError(`missing HOST (one of ${HOSTS.map((h) => h.id).join(', ')})`, 'install');
  if (serverArgs.length > (dashes === -1 ? 1 : 0)) {
    throw new UsageError(`unexpected argument "${serverArgs.at(-1)}" (a command line goes in quotes, or after --)`, 'install');
  }
  if (dashes !== -1 && words.length === 0) throw new UsageError('missing the server command after --', 'install');
  const host = hostId === undefined ? undefined : findHost(hostId);
  if (hostId !== undefined && host === undefined && !values.print) {
    throw new UsageError(
      `unknown host "${hostId}" (known: ${HOSTS.map((h) => h.id).join(', ')}); --print prints the entry for any other host`,
      'install',
    );
  }

  const platform = values.platform ?? (isPlatform(process.platform) ? process.platform : 'linux');
  if (!isPlatform(platform)) throw new UsageError(`--platform is one of ${PLATFORMS.join(', ')}, not "${platform}"`, 'install');
  const built = buildLaunch({
    line: dashes === -1 ? serverArgs[0] : undefined,
    words,
    env: envOf(values.env ?? []),
    serve: values.serve === true,
    platform,
    cwd: process.cwd(),
    cliMain: realpathSync(process.argv[1]!),
  });
  const name = values.name ?? built.name;
  if (name.trim() === '' || name === '__proto__') throw new UsageError(`--name "${name}" cannot name a server`, 'install');
  const entry = entryFor(host, built.launch);

  if (values.print) {
    for (const note of built.notes) out.stderr(`janus-mcp: ${note}`);
    out.stdout(JSON.stringify({ [name]: entry }, null, 2));
    return 0;
  }
  const target = host!;
  const scope = values.scope ?? target.scopes[0]!;
  if (!target.scopes.includes(scope)) {
    throw new UsageError(`${target.title} has the scopes ${target.scopes.join(', ')}, not "${scope}"`, 'install');
  }
  const location = target.locate(scope, { platform, env: process.env, project: projectFolder(values.project) });
  const merged = mergeEntry({
    file: location.file,
    text: readConfig(location.file),
    jsonc: target.jsonc === true,
    path: location.path,
    name,
    entry,
    force: values.force === true,
  });
  const what = `the server "${name}" ${merged.replaced ? 'replaced' : 'added'}`;
  if (values['dry-run']) {
    out.stderr(`janus-mcp: dry run, nothing written. ${location.file} would be, with ${what}:`);
    out.stdout(merged.text.trimEnd());
    return 0;
  }
  writeAtomically(location.file, merged.text);
  out.stdout(`${target.title} (${scope} scope): ${what} in ${location.file}`);
  out.stdout(`  ${'url' in built.launch ? built.launch.url : [built.launch.command, ...built.launch.args].join(' ')}`);
  for (const note of [location.note, ...built.notes]) if (note !== undefined) out.stdout(`Note: ${note}`);
  out.stdout(`Next: ${target.next}`);
  return 0;
}

/** The host's entry; a URL for Claude Desktop is refused with the ways round it. */
function entryFor(host: Host | undefined, launch: Launch): JsonObject {
  if (host === undefined) return genericEntry(launch);
  const entry = host.entry(launch);
  if (entry !== undefined) return entry;
  const url = 'url' in launch ? launch.url : '';
  throw new UsageError(
    `${host.title}'s config file starts commands only, not URLs: add the server in its Settings → Connectors, or install a bridge over stdio: janus-mcp install ${host.id} -- npx -y janus-mcp proxy --stdio --upstream ${url} (or -- npx -y mcp-remote ${url})`,
    'install',
  );
}

function envOf(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--env needs KEY=VALUE, got "${pair}"`, 'install');
    Object.defineProperty(env, pair.slice(0, eq), { value: pair.slice(eq + 1), enumerable: true, writable: true, configurable: true });
  }
  return env;
}
