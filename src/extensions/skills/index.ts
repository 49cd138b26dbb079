/**
 * The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): what the `Server` facade's
 * `skill` and `skills` build on, and the wire vocabulary the client shares.
 */
import { JanusError } from '../../protocol/errors.js';
import { findSkillPaths, readSkillDirectory } from './disk.js';
import type { SkillFiles } from './skill.js';
import type { SkillRegistration, SkillsExtension } from './serve.js';
import { loadYaml } from './frontmatter.js';

export { SkillsExtension, type SkillsOptions, type SkillRegistration, type SkillResourceHost } from './serve.js';
export { readSkillDirectory } from './disk.js';
export type { SkillFiles, SkillFileContent } from './skill.js';
export * from './wire.js';

/** Where a skill's files come from: in memory, or a directory on disk. */
export type SkillSource = SkillFiles | string;

/** Serves one skill from a directory on disk. */
export async function serveSkillDirectory(skills: SkillsExtension, path: string, directory: string): Promise<SkillRegistration> {
  const [files] = await Promise.all([readSkillDirectory(directory), loadYaml()]);
  return skills.add(path, files);
}

/** Loads what parsing SKILL.md frontmatter needs (the YAML parser), for runtimes that cannot load it synchronously. */
export function prepareSkills(): Promise<void> {
  return loadYaml();
}

/**
 * Serves every skill under `root` (each directory holding a SKILL.md, at its relative path),
 * all or none: the first that fails undoes the others and its error is thrown.
 */
export async function serveSkillsDirectory(skills: SkillsExtension, root: string): Promise<SkillRegistration[]> {
  const [paths] = await Promise.all([findSkillPaths(root), loadYaml()]);
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
