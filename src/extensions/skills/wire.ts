/**
 * The Skills extension's wire vocabulary (SEP-2640 §Specification): its identifier, the
 * entries `skills/list` and `skills/get` carry, and the per-skill limits. Shared by the
 * server side (this folder) and the client (src/client/skills.ts).
 */

/** The extension identifier under `capabilities.extensions` (SEP-2640 §Capability Declaration). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The skill's required file at its root (SEP-2640 §Skill Format). */
export const SKILL_FILE = 'SKILL.md';

/** The scheme skills are served under here (SEP-2640 §Resource Mapping: SHOULD). */
export const SKILL_SCHEME = 'skill://';

/** mimeType of a directory resource (SEP-2640 §Directory resources). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** SEP-2640 §Limits: what every conforming host accepts, per skill. */
export const MAX_SKILL_RESOURCES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** One file of a skill, as its entry lists it (SEP-2640 §Resources). */
export interface SkillResourceEntry {
  /** The file's resource URI. */
  uri: string;
  /** `sha256:` and 64 lowercase hex digits over the file's raw bytes. */
  digest: string;
  /** Length in bytes of the file's raw content. */
  size: number;
}

/** A skill entry of `skills/list` and `skills/get` (SEP-2640 §Enumeration via skills/list). */
export interface SkillEntry {
  /** The resource URI of the skill's SKILL.md. */
  uri: string;
  /** The SKILL.md YAML frontmatter, verbatim, as JSON; `name` and `description` always present. */
  frontmatter: SkillFrontmatter;
  /** Every file of the skill, or `"dynamic"` for generated content without stable digests. */
  resources: SkillResourceEntry[] | 'dynamic';
}

/**
 * The YAML frontmatter of a SKILL.md: its `name` and `description`, and any other fields as
 * written.
 */
export interface SkillFrontmatter {
  /** The skill's name. */
  name: string;
  /** What the skill does and when to use it: what an agent reads to choose it. */
  description: string;
  [field: string]: unknown;
}

/** The format of a digest (SEP-2640 §Integrity and verification). */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
