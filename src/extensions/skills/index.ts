/**
 * `janus-mcp/skills`: the Skills extension (SEP-2640, `io.modelcontextprotocol/skills`). Add it
 * to a server, then serve skills through it, from memory or from directories on disk:
 *
 * ```ts
 * import { createServer } from 'janus-mcp/server';
 * import { skills } from 'janus-mcp/skills';
 *
 * const library = skills();
 * const server = createServer({ name: 'docs', version: '1.0.0', extensions: [library] });
 * library.skill('git-workflow', { files: { 'SKILL.md': '---\nname: git-workflow\ndescription: Our Git conventions\n---\n...' } });
 * await library.skill('acme/billing/refunds', './skills/refunds');
 * ```
 *
 * @module janus-mcp/skills
 */
import { loadYaml } from './frontmatter.js';
import { SkillsExtension, type SkillsOptions } from './serve.js';

export { SkillsExtension, type SkillsOptions, type SkillRegistration } from './serve.js';
export { readSkillDirectory } from './disk.js';
export type { SkillFiles, SkillFileContent } from './skill.js';
export { SKILLS_EXTENSION } from './wire.js';
export type { SkillEntry, SkillResourceEntry, SkillFrontmatter } from './wire.js';

/** The Skills extension, for `createServer({ extensions: [skills()] })`: one per server. */
export function skills(options?: SkillsOptions): SkillsExtension {
  return new SkillsExtension(options);
}

/** Loads what parsing SKILL.md frontmatter needs (the YAML parser), for runtimes that cannot load it synchronously. */
export function prepareSkills(): Promise<void> {
  return loadYaml();
}
