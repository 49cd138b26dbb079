/**
 * The examples as a user gets them: each folder of examples/ is copied into an empty directory,
 * its package.json installed by npm with the packed package in place of `janus-mcp`, compiled
 * with its own tsconfig.json (`npm run build`) and run as its README says.
 *
 * One tarball serves every example test: the first test to need it packs a fresh clone
 * (test/package/support.ts) and keeps the tarball in the system's temp directory under a hash of
 * the files that go into it; the others, in parallel processes or later runs, wait for it and
 * reuse it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { blocksOf, packFreshClone, root, run } from '../package/support.js';
import { pidAlive } from '../support/common.js';
import { delay } from '../support/wait.js';

export { root, run };

/** What the tarball is made of: every file a fresh clone holds, except the examples and their tests, which are not packed. */
async function treeKey(): Promise<string> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
  const hash = createHash('sha256');
  for (const file of stdout.split('\0').sort()) {
    if (file === '' || file.startsWith('examples/') || file.startsWith('test/examples/')) continue;
    const path = join(root, file);
    if (!existsSync(path)) continue;
    hash.update(`${file}\0`);
    hash.update(readFileSync(path));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

const CACHE = join(tmpdir(), 'janus-mcp-example-packs');

/**
 * The packed package for the tree as it is now. A lock folder holding the packer's PID keeps
 * two processes from packing at once; a lock whose process is gone is taken over.
 */
export async function packedTarball(): Promise<string> {
  const key = await treeKey();
  const dir = join(CACHE, key);
  const lock = `${dir}.lock`;
  mkdirSync(CACHE, { recursive: true });
  for (;;) {
    const done = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('.tgz')) : undefined;
    if (done !== undefined) return join(dir, done);
    try {
      mkdirSync(lock);
    } catch {
      const owner = Number(readFileIfThere(join(lock, 'pid')));
      if (owner > 0 && !pidAlive(owner)) rmSync(lock, { recursive: true, force: true });
      await delay(500);
      continue;
    }
    writeFileSync(join(lock, 'pid'), String(process.pid));
    try {
      const work = mkdtempSync(join(tmpdir(), 'janus-mcp-example-pack-'));
      try {
        const { tarball } = await packFreshClone(work);
        const staged = mkdtempSync(join(CACHE, `${key}-`));
        renameSync(tarball, join(staged, basename(tarball)));
        renameSync(staged, dir);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

function readFileIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

interface PackageJson {
  name: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const npmEnv = (extra: Record<string, string>) => ({
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  ...extra,
});

/** The version of a package in the repository's node_modules. */
export function rootVersion(name: string): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

export interface Project {
  /** Where the example was copied, installed and built. */
  readonly dir: string;
  readonly pkg: PackageJson;
  remove(): void;
}

/**
 * Copies examples/<name> into a new temp directory, installs its dependencies with npm
 * (`janus-mcp` from the packed tarball, the rest from npm's cache where it has them) and builds
 * it with `npm run build`. TypeScript is the repository's own copy, linked in, when the
 * example's devDependencies ask for that version: npm would otherwise fetch the same compiler
 * again for every example. `env` goes to npm (a mirror for a native module's binary, say).
 */
export async function installExample(name: string, env: Record<string, string> = {}): Promise<Project> {
  const source = join(root, 'examples', name);
  const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as PackageJson;
  const wanted = pkg.dependencies?.['janus-mcp'];
  const own = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  if (wanted !== '*' && wanted !== own && wanted !== `^${own}`)
    throw new Error(`examples/${name}/package.json: janus-mcp must be "*" or the current version (${own}), not ${String(wanted)}`);
  const typescript = pkg.devDependencies?.typescript;
  const rootTypescript = rootVersion('typescript');
  if (typescript !== `^${rootTypescript}` && typescript !== rootTypescript)
    throw new Error(`examples/${name}/package.json: devDependencies.typescript should be "^${rootTypescript}", the repository's`);

  const tarball = await packedTarball();
  const dir = mkdtempSync(join(tmpdir(), `janus-mcp-example-${name}-`));
  cpSync(source, dir, { recursive: true, filter: (from) => !/[/\\](node_modules|dist)$/.test(from) });
  const { typescript: _linked, ...devDependencies } = pkg.devDependencies ?? {};
  const installed: PackageJson = { ...pkg, dependencies: { ...pkg.dependencies, 'janus-mcp': `file:${tarball}` }, devDependencies };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(installed, null, 2)}\n`);
  await run('npm', ['install', '--prefer-offline', '--no-package-lock', '--loglevel=error'], { cwd: dir, env: npmEnv(env) });
  symlinkSync(join(root, 'node_modules', 'typescript'), join(dir, 'node_modules', 'typescript'), 'dir');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join('..', 'typescript', 'bin', 'tsc'), join(dir, 'node_modules', '.bin', 'tsc'));
  await run('npm', ['run', 'build'], { cwd: dir, env: npmEnv({}) });
  return { dir, pkg, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Started {
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Settles with the exit code (or signal) once the process exited. */
  readonly exit: Promise<number | string>;
}

/** Starts `command args` in `cwd` and waits until its stderr matches `ready`; rejects with its output if it exits first. */
export async function startProcess(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; ready: RegExp; timeoutMs?: number },
): Promise<Started & { match: RegExpExecArray }> {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  const exit = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  child.stderr!.setEncoding('utf8');
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} ${args.join(' ')} did not log ${options.ready} in time:\n${text}`)),
      options.timeoutMs ?? 60_000,
    );
    child.stderr!.on('data', (chunk: string) => {
      text += chunk;
      const m = options.ready.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${code}) before it was ready:\n${text}`));
    });
  });
  return { child, match, exit, stderr: () => text };
}

/** The commands of a README's ```sh blocks, one per line, comments and continuation lines joined. */
export function readmeCommands(name: string): string[] {
  const text = readFileSync(join(root, 'examples', name, 'README.md'), 'utf8');
  const commands: string[] = [];
  for (const m of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    for (const line of m[1]!.replace(/\\\n\s*/g, ' ').split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command !== '' && !command.startsWith('#')) commands.push(command);
    }
  }
  return commands;
}

/**
 * The TypeScript blocks of the example's README, type-checked in the installed project with its
 * own tsconfig.json (as modules of their own, with top-level await): a snippet that no longer
 * compiles against the package fails the example's test. Returns tsc's errors, none when all is well.
 */
export async function typeCheckReadme(project: Project, name: string): Promise<string[]> {
  const blocks = blocksOf(`examples/${name}/README.md`);
  if (blocks.length === 0) throw new Error(`examples/${name}/README.md has no TypeScript block to check`);
  const dir = join(project.dir, 'readme-snippets');
  mkdirSync(dir, { recursive: true });
  for (const [i, block] of blocks.entries()) writeFileSync(join(dir, `block-${i + 1}.ts`), `${block.code}\nexport {};\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '.' }, include: ['.'] }),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await run(process.execPath, [tsc, '-p', dir], { cwd: project.dir });
    return [];
  } catch (e) {
    return String(e instanceof Error ? e.message : e)
      .split('\n')
      .filter((line) => /error TS\d+/.test(line));
  }
}
