/**
 * Skills on disk: a skill directory read into memory, and every skill under a directory
 * (each subdirectory holding a SKILL.md, at its relative path). `node:fs` is loaded on first
 * use only, so janus-mcp/server still runs where there is no file system (in-memory skills).
 * Hidden entries (a leading ".") and symbolic links are skipped: a link could lead out of the tree.
 */
import { JanusError } from '../../protocol/errors.js';
import type { SkillFileContent, SkillFiles } from './skill.js';
import { MAX_SKILL_BYTES, MAX_SKILL_RESOURCES, SKILL_FILE } from './wire.js';

type Fs = typeof import('node:fs/promises');
let fsModule: Promise<Fs> | undefined;
const fs = (): Promise<Fs> => (fsModule ??= import('node:fs/promises'));

/** The files of one skill directory, by path relative to it. Stops past the SEP-2640 limits rather than read them all. */
export async function readSkillDirectory(directory: string): Promise<SkillFiles> {
  const { readdir, readFile } = await fs();
  const files: Record<string, SkillFileContent> = {};
  let count = 0;
  let bytes = 0;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) await walk(path, `${prefix}${entry.name}/`);
      else if (entry.isFile()) {
        const content = new Uint8Array(await readFile(path));
        count++;
        bytes += content.byteLength;
        if (count > MAX_SKILL_RESOURCES || bytes > MAX_SKILL_BYTES) {
          throw new JanusError(
            'REGISTRATION',
            `skill directory ${directory}: more than ${MAX_SKILL_RESOURCES} files or ${MAX_SKILL_BYTES} bytes (SEP-2640 §Limits)`,
          );
        }
        files[prefix + entry.name] = content;
      }
    }
  };
  await walk(trimSlash(directory), '');
  return { files };
}

/** The skill paths under `root`: every directory below it that holds a SKILL.md, as a `/`-separated relative path. */
export async function findSkillPaths(root: string): Promise<string[]> {
  const { readdir } = await fs();
  const found: string[] = [];
  const walk = async (dir: string, relative: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    if (relative !== '' && entries.some((e) => e.name === SKILL_FILE && e.isFile())) found.push(relative);
    for (const entry of entries) {
      if (entry.name.startsWith('.') || !entry.isDirectory()) continue;
      await walk(`${dir}/${entry.name}`, relative === '' ? entry.name : `${relative}/${entry.name}`);
    }
  };
  await walk(trimSlash(root), '');
  return found.sort();
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/[/\\]+$/, '') : path;
}
