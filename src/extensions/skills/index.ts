/**
 * The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): what the `Server` facade's
 * `skill` and `skills` build on, and the wire vocabulary the client shares.
 */
import { JanusError } from '../../protocol/errors.js';
import { findSkillPaths, readSkillDirectory } from './disk.js';
import type { SkillFiles } from './skill.js';
import type { SkillRegistration, SkillsExtension } from './serve.js';

export { SkillsExtension, type SkillsOptions, type SkillRegistration, type SkillResourceHost } from './serve.js';
export { readSkillDirectory } from './disk.js';
export type { SkillFiles, SkillFileContent } from './skill.js';
export * from './wire.js';

/** Where a skill's files come from: in memory, or a directory on disk. */
export type SkillSource = SkillFiles | string;

/** Serves one skill from a directory on disk. */
export async function serveSkillDirectory(skills: SkillsExtension, path: string, directory: string): Promise<SkillRegistration> {
  return skills.add(path, await readSkillDirectory(directory));
}

/**
 * Serves every skill under `root` (each directory holding a SKILL.md, at its relative path),
 * all or none: the first that fails undoes the others and its error is thrown.
 */
export async function serveSkillsDirectory(skills: SkillsExtension, root: string): Promise<SkillRegistration[]> {
  const paths = await findSkillPaths(root);
  const sources = await Promise.all(paths.map(async (p) => ({ path: p, files: await readSkillDirectory(`${root}/${p}`) })));
  const served: SkillRegistration[] = [];
  try {
    for (const { path, files } of sources) served.push(skills.add(path, files));
  } catch (e) {
    for (const s of served) s.remove();
    throw e instanceof JanusError ? new JanusError('REGISTRATION', `skills under ${root}: ${e.message}`, { cause: e }) : e;
  }
  return served;
}
