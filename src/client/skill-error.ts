/** Why a skill's content was refused (SEP-2640 §Integrity and verification: "MUST NOT use the unverified content"). */
export type SkillVerificationFailure =
  /** The read's byte length is not the entry's `size`. */
  | 'size'
  /** The read's SHA-256 is not the entry's `digest`. */
  | 'digest'
  /** The SKILL.md frontmatter differs from the entry's, or cannot be parsed. */
  | 'frontmatter'
  /** The file is not in the entry's `resources` (or lies outside the skill). */
  | 'unlisted'
  /** The read returned nothing usable for the URI. */
  | 'unreadable';

/**
 * A skill file that failed verification against the entry the client holds. Its content is not
 * returned. The usual cause is a skill changed since its entry was fetched: `getSkill` refreshes it.
 */
export class SkillVerificationError extends Error {
  /**
   * @param failure What did not match: its kind.
   * @param uri The file's URI.
   * @param message What went wrong, for a person to read.
   */
  constructor(
    readonly failure: SkillVerificationFailure,
    readonly uri: string,
    message: string,
  ) {
    super(message);
    this.name = 'SkillVerificationError';
  }
}
