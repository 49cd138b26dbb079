/**
 * What a host should start: the SERVER argument of `install` (a URL, a file, or a command line)
 * made into a launch that works from any working folder, which is how hosts start servers:
 * paths absolute, a file given its runner, `npx` wrapped in `cmd /c` for Windows.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../args.js';
import type { Launch, Platform } from './hosts.js';

export interface LaunchRequest {
  /** The SERVER positional (a URL, a file or a command line in quotes), or undefined with `-- COMMAND ARGS…`. */
  readonly line: string | undefined;
  /** The words after `--`, taken as they are. */
  readonly words: readonly string[];
  readonly env: Record<string, string>;
  /** FILE exports a Janus server: run it with `janus-mcp serve`. */
  readonly serve: boolean;
  readonly platform: Platform;
  /** Where relative paths are found. */
  readonly cwd: string;
  /** This command's own entry (dist/bundle/cli/main.js), for `--serve` when FILE's folder has no janus-mcp. */
  readonly cliMain: string;
}

export interface Built {
  readonly launch: Launch;
  /** A name for the entry when `--name` is not given. */
  readonly name: string;
  /** What was changed or assumed, said to the user. */
  readonly notes: string[];
}

const MODULE = /\.(?:[cm]?js|[cm]?ts)$/;
const TYPESCRIPT = /\.[cm]?ts$/;
const RUNNERS = /^(?:npx|pnpx|bunx|uvx)(?:\.cmd|\.exe)?$/i;

export function buildLaunch(request: LaunchRequest): Built {
  const { line } = request;
  if (line !== undefined && /^https?:\/\//i.test(line.trim())) return urlLaunch(line.trim(), request);
  // A command line is split on whitespace, as connect() and every other verb split a TARGET.
  const words = line === undefined ? [...request.words] : line.trim().split(/\s+/);
  if (words.length === 0 || words[0] === '') throw new UsageError('missing SERVER (a command line, a file or a URL)', 'install');
  const notes: string[] = [];
  const built = words.length === 1 && MODULE.test(words[0]!) ? fileLaunch(words[0]!, request, notes) : commandLaunch(words, request, notes);
  return { ...built, launch: forPlatform(built.launch, request.platform, notes), notes };
}

function urlLaunch(text: string, request: LaunchRequest): Built {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`"${text}" is not a URL`, 'install');
  }
  if (Object.keys(request.env).length > 0) throw new UsageError('--env sets a command’s environment: a URL server takes none', 'install');
  if (request.serve) throw new UsageError('--serve takes a FILE, not a URL', 'install');
  return { launch: { url: url.href }, name: entryName(url.hostname), notes: [] };
}

/** A module: `node FILE`, `npx -y tsx FILE` for TypeScript, or `janus-mcp serve FILE` with --serve. */
function fileLaunch(file: string, request: LaunchRequest, notes: string[]): Omit<Built, 'notes'> {
  const path = resolve(request.cwd, file);
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`no such file: ${path}`, 'install');
  const typescript = TYPESCRIPT.test(path);
  const { env } = request;
  const name = nameFromFile(path);
  if (typescript)
    notes.push(
      'A TypeScript file runs through tsx, which npx fetches on the first start: build it and install the .js for a faster start.',
    );
  if (!request.serve) {
    return { name, launch: typescript ? { command: 'npx', args: ['-y', 'tsx', path], env } : { command: 'node', args: [path], env } };
  }
  const cli = janusCliFor(path);
  if (cli === undefined) notes.push(`janus-mcp is not installed where ${file} is: the server runs with this copy, ${request.cliMain}.`);
  const main = cli ?? request.cliMain;
  return {
    name,
    launch: typescript
      ? { command: 'npx', args: ['-y', 'tsx', main, 'serve', path], env }
      : { command: 'node', args: [main, 'serve', path], env },
  };
}

/** A command line: its words that name existing files or folders made absolute. */
function commandLaunch(words: string[], request: LaunchRequest, notes: string[]): Omit<Built, 'notes'> {
  if (request.serve) throw new UsageError('--serve takes a FILE (a module exporting a Janus server), not a command line', 'install');
  // A word is taken for a path when it looks like one (./x, a/b) or is a file with an extension
  // (server.js); a bare word (`-m server`) stays a word even when a folder has its name.
  const absolute = words.map((word) => {
    if (word.startsWith('-') || isAbsolute(word)) return word;
    const path = resolve(request.cwd, word);
    if (/^\.|[\\/]/.test(word)) return existsSync(path) ? path : word;
    return extname(word) !== '' && statSync(path, { throwIfNoEntry: false })?.isFile() ? path : word;
  });
  const changed = words.filter((w, i) => absolute[i] !== w);
  if (changed.length > 0) notes.push(`Made absolute (the host starts the server from another folder): ${changed.join(', ')}.`);
  const [command, ...args] = absolute as [string, ...string[]];
  const file = absolute.find((w) => isAbsolute(w) && statSync(w, { throwIfNoEntry: false })?.isFile());
  // A package runner (`npx -y @acme/weather-mcp`, `uvx weather-server`) is named after its package.
  const runner = RUNNERS.test(basename(command)) ? args.find((a) => !a.startsWith('-')) : undefined;
  // A script the command runs (`node server.js`) that is not here: written as given, but the host
  // will look for it in a folder of its own choosing.
  const script = args.find((a) => !a.startsWith('-') && SCRIPT.test(a));
  if (file === undefined && script !== undefined && !isAbsolute(script))
    notes.push(
      `${script} is not a file in ${request.cwd}: it is written as given, and the host will look for it in its own folder; give a path that exists.`,
    );
  const name =
    file !== undefined
      ? nameFromFile(file)
      : entryName(runner ?? (script !== undefined ? basename(script, extname(script)) : basename(command)));
  return { name, launch: { command, args, env: request.env } };
}

/** A script file a runtime runs, by its extension. */
const SCRIPT = /\.(?:[cm]?[jt]s|py)$/i;

/** On Windows `npx` is a batch file, which hosts that spawn without a shell cannot start: `cmd /c npx …`. */
function forPlatform(launch: Launch, platform: Platform, notes: string[]): Launch {
  if (platform !== 'win32' || 'url' in launch || !/^npx(?:\.cmd)?$/i.test(launch.command)) return launch;
  notes.push('On Windows npx is a batch file: the entry runs it through cmd /c.');
  return { command: 'cmd', args: ['/c', 'npx', ...launch.args], env: launch.env };
}

/** The name of the nearest package.json above the file, or else the file's name. */
function nameFromFile(path: string): string {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (typeof pkg.name === 'string' && pkg.name !== '') return entryName(pkg.name);
    } catch {
      // none here, or not JSON: one folder up
    }
    if (dirname(dir) === dir) return entryName(basename(path, extname(path)));
  }
}

/** A name hosts take: `@acme/weather-mcp@1.2` → `weather-mcp`; anything but letters, digits, _ and - becomes -. */
export function entryName(text: string): string {
  const bare = text.replace(/^@[^/]+\//, '').replace(/@[^@]*$/, '');
  return bare.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'server';
}

/** The janus-mcp command that FILE's imports of janus-mcp resolve to (the one copy `serve` accepts), if any. */
function janusCliFor(file: string): string | undefined {
  try {
    const manifest = createRequire(file).resolve('janus-mcp/package.json');
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> };
    const bin = pkg.bin?.['janus-mcp'];
    return bin === undefined ? undefined : realpathSync(join(dirname(manifest), bin));
  } catch {
    return undefined;
  }
}
