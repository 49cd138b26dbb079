/**
 * The hosts `install` knows: where each keeps its MCP config file on each platform and scope,
 * under which key, and the shape of an entry. docs/hosts.md says the same for people editing
 * the files by hand.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { JsonObject } from './json-text.js';

/** The platforms whose file locations differ; any other is treated as Linux. */
export type Platform = 'linux' | 'darwin' | 'win32';

/** What a location depends on: the target platform, the environment, the project folder. */
export interface Where {
  readonly platform: Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The project (workspace) folder, absolute. */
  readonly project: string;
}

export interface Location {
  readonly file: string;
  /** The keys down to the object of servers. */
  readonly path: readonly string[];
  /** A remark on the location, said after writing (a Linux build that is not official). */
  readonly note?: string;
}

/** A server's launch: a command over stdio, or the URL of a Streamable HTTP server. */
export type Launch = { command: string; args: string[]; env: Record<string, string> } | { url: string };

export interface Host {
  readonly id: string;
  readonly title: string;
  /** Scopes, the default first. */
  readonly scopes: readonly string[];
  locate(scope: string, where: Where): Location;
  /** The entry for a launch; undefined when the host cannot use it (a URL in Claude Desktop). */
  entry(launch: Launch): JsonObject | undefined;
  /** Comments and trailing commas are allowed in its files. */
  readonly jsonc?: boolean;
  /** What to do after writing, for the server to be seen. */
  readonly next: string;
}

/** The user's home: HOME (USERPROFILE first on Windows), as the hosts find it. */
export function home(where: Where): string {
  const { env } = where;
  return (where.platform === 'win32' ? (env.USERPROFILE ?? env.HOME) : env.HOME) || homedir();
}

/** The per-user application data folder where desktop apps keep settings (Electron's appData). */
function appData(where: Where): string {
  if (where.platform === 'win32') return where.env.APPDATA || join(home(where), 'AppData', 'Roaming');
  if (where.platform === 'darwin') return join(home(where), 'Library', 'Application Support');
  return where.env.XDG_CONFIG_HOME || join(home(where), '.config');
}

/** Entries without `type`: `{ command, args, env }`, and a URL under `urlKey` when supported. */
function plainEntry(urlKey: string | undefined) {
  return (launch: Launch): JsonObject | undefined => {
    if ('url' in launch) return urlKey === undefined ? undefined : { [urlKey]: launch.url };
    return withEnv({ command: launch.command, args: launch.args }, launch.env);
  };
}

/** Entries with `type`: `{ type: 'stdio', command, args, env }` or `{ type: 'http', url }`. */
function typedEntry(launch: Launch): JsonObject {
  if ('url' in launch) return { type: 'http', url: launch.url };
  return withEnv({ type: 'stdio', command: launch.command, args: launch.args }, launch.env);
}

function withEnv(entry: JsonObject, env: Record<string, string>): JsonObject {
  return Object.keys(env).length > 0 ? { ...entry, env } : entry;
}

export const HOSTS: readonly Host[] = [
  {
    id: 'claude-desktop',
    title: 'Claude Desktop',
    scopes: ['user'],
    locate: (_scope, where) => ({
      file: join(appData(where), 'Claude', 'claude_desktop_config.json'),
      path: ['mcpServers'],
      note:
        where.platform === 'linux'
          ? 'Claude Desktop has no official Linux build: this is where the community builds read their config.'
          : undefined,
    }),
    entry: plainEntry(undefined),
    next: 'Quit Claude Desktop completely (not only its window) and start it again.',
  },
  {
    id: 'claude-code',
    title: 'Claude Code',
    // `claude mcp add` defaults to local: this project only, kept in ~/.claude.json.
    scopes: ['local', 'project', 'user'],
    locate: (scope, where) => {
      if (scope === 'project') return { file: join(where.project, '.mcp.json'), path: ['mcpServers'] };
      const file = join(home(where), '.claude.json');
      return scope === 'user' ? { file, path: ['mcpServers'] } : { file, path: ['projects', where.project, 'mcpServers'] };
    },
    entry: typedEntry,
    next: 'Start a new Claude Code session (or run /mcp in one) and check the server is connected.',
  },
  {
    id: 'cursor',
    title: 'Cursor',
    scopes: ['user', 'project'],
    locate: (scope, where) => ({
      file: scope === 'project' ? join(where.project, '.cursor', 'mcp.json') : join(home(where), '.cursor', 'mcp.json'),
      path: ['mcpServers'],
    }),
    entry: plainEntry('url'),
    next: "Restart Cursor, then check the server is enabled in Cursor Settings' MCP section.",
  },
  {
    id: 'vscode',
    title: 'VS Code',
    scopes: ['workspace', 'user'],
    locate: (scope, where) => ({
      file: scope === 'user' ? join(appData(where), 'Code', 'User', 'mcp.json') : join(where.project, '.vscode', 'mcp.json'),
      path: ['servers'],
    }),
    entry: typedEntry,
    jsonc: true,
    next: 'In VS Code, run "MCP: List Servers" and start the server (or reload the window); its tools appear in the chat in agent mode.',
  },
  {
    id: 'windsurf',
    title: 'Windsurf',
    scopes: ['user'],
    locate: (_scope, where) => ({ file: join(home(where), '.codeium', 'windsurf', 'mcp_config.json'), path: ['mcpServers'] }),
    entry: plainEntry('serverUrl'),
    next: "Press Refresh in Cascade's MCP panel (or restart Windsurf).",
  },
];

export function findHost(id: string): Host | undefined {
  return HOSTS.find((h) => h.id === id);
}

/** The entry printed by `--print` for hosts not in the table: the common `mcpServers` shape. */
export const genericEntry = (launch: Launch): JsonObject =>
  'url' in launch ? { type: 'http', url: launch.url } : withEnv({ command: launch.command, args: launch.args }, launch.env);

export function projectFolder(text: string | undefined): string {
  return resolve(text ?? '.');
}
