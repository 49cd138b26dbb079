/**
 * A page of the docs followed by a reader, literally: the files it shows (fenced blocks whose
 * first line names them, `// server.ts`) are written as they are, the ```sh blocks are typed
 * into one shell in document order, and each ```text block is what the command before it
 * prints. A page may offer two ways to run the code: a ```sh block that runs `npx tsx` is
 * the tsx route, one that runs `npx tsc` or `node dist/…` the compiled route; a reader takes
 * one, and a ```text block after both shows what either prints.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { root } from './support.js';

export type Route = 'tsx' | 'compiled';

export type Step =
  | { kind: 'file'; where: string; name: string; content: string }
  | { kind: 'commands'; where: string; script: string; route: Route | undefined; output?: string };

type Fence = { kind: 'text'; where: string; content: string } | Step;

const FENCE = /^```(\w*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;
/** Languages in which a reader writes project files: such a block must say which file it is. */
const FILE_LANGS = new Set(['ts', 'typescript', 'js', 'jsonc']);

function routeOf(script: string, where: string): Route | undefined {
  const tsx = /^\s*npx tsx\b/m.test(script);
  const compiled = /^\s*(?:npx tsc\b|node dist\/)/m.test(script);
  if (tsx && compiled) throw new Error(`${where}: one block runs both tsx and the compiled code; give each route its own block`);
  return tsx ? 'tsx' : compiled ? 'compiled' : undefined;
}

/**
 * The fenced blocks of a document (or of one `## section` of it) that a reader acts on, in order.
 * An unnamed block in a language of project files is an error: the reader would not know where it goes.
 */
export function fencesOf(doc: string, section?: string): Fence[] {
  const whole = readFileSync(join(root, doc), 'utf8');
  let from = 0;
  let to = whole.length;
  if (section !== undefined) {
    const heading = new RegExp(`^## ${section}\\s*$`, 'm').exec(whole);
    if (!heading) throw new Error(`${doc} has no "## ${section}" section`);
    from = heading.index;
    const next = /^## /m.exec(whole.slice(from + heading[0].length));
    if (next) to = from + heading[0].length + next.index;
  }
  const fences: Fence[] = [];
  for (const m of whole.slice(from, to).matchAll(FENCE)) {
    const [lang, code] = [m[1]!, m[2]!];
    const where = `${doc}:${whole.slice(0, from + m.index).split('\n').length}`;
    if (lang === 'sh') fences.push({ kind: 'commands', where, script: code, route: routeOf(code, where) });
    else if (lang === 'text') fences.push({ kind: 'text', where, content: code });
    else {
      const named = /^\/\/ ([\w.-]+\.\w+)\s*$/m.exec(code.split('\n', 1)[0]!);
      if (named) fences.push({ kind: 'file', where, name: named[1]!, content: code });
      else if (FILE_LANGS.has(lang)) throw new Error(`${where}: a \`\`\`${lang} block with no first-line comment naming its file`);
    }
  }
  return fences;
}

/** The steps of one route: shared blocks and the route's own, each output on the command it follows. */
export function stepsOf(fences: Fence[], route: Route): Step[] {
  const steps: Step[] = [];
  for (const f of fences) {
    if (f.kind === 'commands' && f.route !== undefined && f.route !== route) continue;
    if (f.kind !== 'text') {
      steps.push({ ...f });
      continue;
    }
    const last = steps.at(-1);
    if (last?.kind !== 'commands' || last.output !== undefined)
      throw new Error(`${f.where}: a \`\`\`text block that follows no command of the ${route} route`);
    last.output = f.content;
  }
  return steps;
}

export interface WalkOptions {
  /** What `janus-mcp` in an `npm install` line stands for: the packed tarball. */
  tarball: string;
  /** Another spec for `typescript` in `npm install` lines (`typescript@5.9.3`). */
  typescript?: string;
  /** Called with the URL a long-running server printed; the server is stopped afterwards. */
  onServer: (url: string) => Promise<void>;
  /** The bound of one block (default 8 minutes: `tsc` on a busy machine is slow). */
  timeoutMs?: number;
}

export interface Walked {
  /** Where the reader's shell ended up (after any `cd`). */
  cwd: string;
  /** How many outputs were compared with the page, and how many servers were reached. */
  outputs: number;
  servers: number;
}

/** The environment of a reader's terminal: npm's own run variables out, npm asked to use its cache first. */
function readerEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'npm_config_globalconfig']);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) || keep.has(k.toLowerCase())) env[k] = v;
  delete env.INIT_CWD;
  return {
    ...env,
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    // A server that reads PORT takes a free one, so walks can run side by side.
    PORT: '0',
  };
}

/** The one substitution: in `npm install` lines, the package names that stand for the tarball or another version. */
function substitute(script: string, o: WalkOptions): string {
  return script
    .split('\n')
    .map((line) => {
      if (!/^\s*npm (?:install|i|add)\b/.test(line)) return line;
      let out = line.replace(/(?<=\s)janus-mcp(?=\s|$)/g, `'${o.tarball}'`);
      if (o.typescript) out = out.replace(/(?<=\s)typescript(?=\s|$)/g, o.typescript);
      return out;
    })
    .join('\n');
}

const URL_IN_OUTPUT = /https?:\/\/[^\s/]+\/\S*/;
/** Ports differ (PORT=0 picks a free one), the rest of a server's output must not. */
const portless = (s: string) => s.replace(/(https?:\/\/[^\s/:]+):\d+/g, '$1:PORT');

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Waits for every process of the group to end; SIGKILLs what is left after `ms` and says so. */
async function groupGone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (groupAlive(pid)) {
    if (Date.now() > until) {
      killGroup(pid, 'SIGKILL');
      return false;
    }
    await delay(100);
  }
  return true;
}

interface Shell {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startShell(script: string, cwd: string, env: NodeJS.ProcessEnv): Shell {
  // Its own process group: a block's processes (npx, tsx, the server a client started) end together.
  const child = spawn('bash', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Writes the files and runs the commands of `steps` in `dir` (an empty folder), in order, as a
 * reader would in one terminal. Rejects at the first command that fails, prints something other
 * than the page shows, or leaves processes behind.
 */
export async function walk(dir: string, steps: Step[], o: WalkOptions): Promise<Walked> {
  const env = readerEnv();
  const cwdFile = `${dir}.cwd`;
  const timeoutMs = o.timeoutMs ?? 480_000;
  let cwd = dir;
  let outputs = 0;
  let servers = 0;
  mkdirSync(dir, { recursive: true });
  for (const step of steps) {
    if (step.kind === 'file') {
      writeFileSync(join(cwd, step.name), step.content);
      continue;
    }
    const typed = substitute(step.script, o);
    const url = step.output === undefined ? undefined : URL_IN_OUTPUT.exec(step.output);
    const shell = startShell(`set -e\n${typed}\npwd > '${cwdFile}'\n`, cwd, env);
    const pid = shell.child.pid!;
    const failed = (why: string) =>
      new Error(`${step.where}: ${why}\n--- typed:\n${typed}\n--- stdout:\n${shell.stdout()}\n--- stderr:\n${shell.stderr()}`);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(pid, 'SIGKILL');
    }, timeoutMs);
    try {
      if (url) {
        // A server: it runs until stopped. Wait for what the page says it prints, reach it, stop it.
        const expected = portless(step.output!);
        const printed = await new Promise<string>((resolve, reject) => {
          const check = () => {
            if (portless(shell.stdout()) === expected) resolve(shell.stdout());
            else if (!expected.startsWith(portless(shell.stdout()))) reject(failed('the server printed something else'));
          };
          shell.child.stdout!.on('data', check);
          void shell.exited.then((code) => reject(failed(`the server exited (${code}) instead of serving`)));
        });
        await o.onServer(URL_IN_OUTPUT.exec(printed)![0]);
        servers++;
        outputs++;
        killGroup(pid, 'SIGTERM');
        await shell.exited;
        if (!(await groupGone(pid, 15_000))) throw failed('the server did not stop on SIGTERM');
        continue;
      }
      const code = await shell.exited;
      if (!(await groupGone(pid, 15_000))) throw failed('processes were left running after the commands ended');
      if (code !== 0) throw failed(timedOut ? `still running after ${timeoutMs} ms` : `exited with ${code}`);
      if (step.output !== undefined) {
        if (shell.stdout() !== step.output) throw failed(`printed something else than the page shows:\n${step.output}`);
        outputs++;
      }
      cwd = readFileSync(cwdFile, 'utf8').trim();
    } finally {
      clearTimeout(timer);
      killGroup(pid, 'SIGKILL');
    }
  }
  return { cwd, outputs, servers };
}
