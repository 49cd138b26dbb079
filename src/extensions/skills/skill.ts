/**
 * One skill as the server holds it: its path, its files with their URIs, mimeTypes and raw
 * bytes, its frontmatter, and its entry. Everything SEP-2640 asks of a served skill is checked
 * here, when it is registered, so that a bad skill never reaches a client: SKILL.md with
 * `name` and `description` (§Skill Format), the final path segment equal to `name` and valid
 * by the Agent Skills rules (§Resource Mapping), and the per-skill limits (§Limits, "SHOULD NOT
 * serve": refused).
 */
import { JanusError } from '../../protocol/errors.js';
import { fileBytes, sha256Digest, utf8Text } from './digest.js';
import { isSkillName, parseFrontmatter } from './frontmatter.js';
import { mimeTypeOf, sentAsText } from './mime.js';
import {
  MAX_SKILL_BYTES,
  MAX_SKILL_RESOURCES,
  SKILL_FILE,
  SKILL_SCHEME,
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResourceEntry,
} from './wire.js';

/** A file's content: text (sent as its UTF-8 bytes) or raw bytes. */
export type SkillFileContent = string | Uint8Array;

/** A skill held in memory: its files by path relative to the skill root, `/`-separated, SKILL.md among them. */
export interface SkillFiles {
  /**
   * The files by path relative to the skill root (`SKILL.md`, `scripts/run.py`), SKILL.md among
   * them.
   */
  files: Readonly<Record<string, SkillFileContent>>;
}

export interface SkillFile {
  /** Relative to the skill root (`references/FORMS.md`). */
  readonly path: string;
  readonly uri: string;
  readonly bytes: Uint8Array;
  /** The bytes as text when they are UTF-8 of a textual mimeType; otherwise they go as a base64 blob. */
  readonly text: string | undefined;
  readonly mimeType: string;
}

export interface BuiltSkill {
  /** The skill path (`acme/billing/refunds`). */
  readonly path: string;
  /** The skill root directory's URI (`skill://acme/billing/refunds`, no trailing slash). */
  readonly root: string;
  /** The URI of its SKILL.md. */
  readonly uri: string;
  readonly frontmatter: SkillFrontmatter;
  /** SKILL.md first, then the others by path. */
  readonly files: readonly SkillFile[];
  /** Its entry, digests computed once (Web Crypto is asynchronous). */
  entry(): Promise<SkillEntry>;
}

/** A skill-path or file-path segment that can stand in a URI as it is (RFC 3986 unreserved). */
const PLAIN_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** The segments of a skill path, or a registration error saying what is wrong with it. */
export function skillPathSegments(path: string): string[] {
  if (typeof path !== 'string' || path === '')
    throw registration(String(path), 'a skill needs a path (`git-workflow`, `acme/billing/refunds`)');
  const segments = path.split('/');
  for (const s of segments) {
    if (s === '' || s === '.' || s === '..' || !PLAIN_SEGMENT.test(s)) {
      throw registration(path, `its path segment "${s}" is not a plain URI segment (letters, digits, "-", ".", "_", "~"; not "." or "..")`);
    }
  }
  const name = segments.at(-1)!;
  if (!isSkillName(name)) {
    throw registration(
      path,
      `its final path segment "${name}" is not a valid skill name (1-64 of a-z, 0-9 and "-", no leading, trailing or doubled "-")`,
    );
  }
  return segments;
}

/** Builds and checks a skill from its files. Synchronous: digests come later, with the entry. */
export function buildSkill(path: string, source: SkillFiles): BuiltSkill {
  const segments = skillPathSegments(path);
  const given = source?.files;
  if (typeof given !== 'object' || given === null) throw registration(path, 'give its files as { files: { "SKILL.md": "...", ... } }');
  const root = SKILL_SCHEME + segments.join('/');
  const files: SkillFile[] = [];
  let total = 0;
  for (const [filePath, content] of Object.entries(given)) {
    checkFilePath(path, filePath);
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw registration(path, `file "${filePath}" must be a string or a Uint8Array`);
    }
    const bytes = fileBytes(content);
    total += bytes.byteLength;
    const decoded = utf8Text(bytes);
    const mimeType = mimeTypeOf(filePath, decoded !== undefined);
    const text = decoded !== undefined && sentAsText(mimeType) ? decoded : undefined;
    files.push({ path: filePath, uri: `${root}/${filePath.split('/').map(encodeURIComponent).join('/')}`, bytes, text, mimeType });
  }
  files.sort((a, b) => (a.path === SKILL_FILE ? -1 : b.path === SKILL_FILE ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const skillMd = files[0];
  if (skillMd?.path !== SKILL_FILE) throw registration(path, `it has no ${SKILL_FILE} at its root`);
  if (files.length > MAX_SKILL_RESOURCES) {
    throw registration(path, `it has ${files.length} files; SEP-2640 §Limits allows at most ${MAX_SKILL_RESOURCES} per skill`);
  }
  if (total > MAX_SKILL_BYTES) {
    throw registration(path, `its files total ${total} bytes; SEP-2640 §Limits allows at most ${MAX_SKILL_BYTES} (16 MiB) per skill`);
  }
  const frontmatter = skillFrontmatter(path, segments.at(-1)!, skillMd);
  let entry: Promise<SkillEntry> | undefined;
  return {
    path,
    root,
    uri: skillMd.uri,
    frontmatter,
    files,
    entry: () => (entry ??= entryOf(skillMd.uri, frontmatter, files)),
  };
}

function skillFrontmatter(path: string, name: string, skillMd: SkillFile): SkillFrontmatter {
  const text = utf8Text(skillMd.bytes);
  if (text === undefined) throw registration(path, `its ${SKILL_FILE} is not UTF-8 text`);
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) throw registration(path, `its ${SKILL_FILE}: ${parsed.problem}`);
  const fm = parsed.frontmatter;
  if (typeof fm.name !== 'string' || fm.name === '') throw registration(path, `its ${SKILL_FILE} frontmatter has no "name"`);
  if (typeof fm.description !== 'string' || fm.description === '') {
    throw registration(path, `its ${SKILL_FILE} frontmatter has no "description"`);
  }
  if (fm.name !== name) {
    throw registration(
      path,
      `its ${SKILL_FILE} frontmatter name "${fm.name}" differs from its final path segment "${name}" (SEP-2640 §Resource Mapping: they MUST be equal)`,
    );
  }
  return fm as SkillFrontmatter;
}

async function entryOf(uri: string, frontmatter: SkillFrontmatter, files: readonly SkillFile[]): Promise<SkillEntry> {
  const resources: SkillResourceEntry[] = await Promise.all(
    files.map(async (f) => ({ uri: f.uri, digest: await sha256Digest(f.bytes), size: f.bytes.byteLength })),
  );
  return { uri, frontmatter, resources };
}

function checkFilePath(path: string, filePath: string): void {
  const segments = filePath.split('/');
  const bad = segments.find((s) => s === '' || s === '.' || s === '..' || hasControlOrBackslash(s));
  if (bad !== undefined) {
    throw registration(
      path,
      `file path "${filePath}" must be relative, "/"-separated, without empty, "." or ".." segments, backslashes or control characters`,
    );
  }
}

/** A backslash (a Windows separator) or a control character, neither of which belongs in a file name served as a URI. */
function hasControlOrBackslash(segment: string): boolean {
  for (const ch of segment) {
    const c = ch.charCodeAt(0);
    if (ch === '\\' || c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

function registration(path: string, problem: string): JanusError {
  return new JanusError('REGISTRATION', `skill "${path}": ${problem}`);
}
