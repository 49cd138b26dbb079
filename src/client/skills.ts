/**
 * The Skills extension on the client (SEP-2640): listing and retrieving skill entries, and
 * loading a skill the way §Integrity and verification asks of a host. Nothing is fetched
 * ahead of need: listing reads no file; `loadSkill` reads SKILL.md then, checks its size, then
 * its digest, then compares its frontmatter field by field with the entry, and hands out the
 * content only when all agree. A supporting file is read only if the entry lists it, and
 * verified the same way.
 */
import { SkillVerificationError } from './skill-error.js';
import { base64ToBytes } from '../protocol/base64.js';
import { JanusError } from '../protocol/errors.js';
import type { ReadResourceResult, Resource, ServerCapabilities } from '../protocol/types.js';
import { fileBytes, sha256Digest, utf8Text } from '../extensions/skills/digest.js';
import { frontmatterDifferences, loadYaml, parseFrontmatter } from '../extensions/skills/frontmatter.js';
import {
  DIGEST_PATTERN,
  SKILL_FILE,
  SKILLS_EXTENSION,
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResourceEntry,
} from '../extensions/skills/wire.js';

export { SKILLS_EXTENSION };
export type { SkillEntry, SkillFrontmatter, SkillResourceEntry };

/** A skill loaded from verified content. */
export interface LoadedSkill {
  /** The skill's entry, as listed (or got), that SKILL.md was verified against. */
  readonly entry: SkillEntry;
  /** The skill root (`skill://pdf-processing`): relative references in SKILL.md resolve against it. */
  readonly root: string;
  /** SKILL.md as text, frontmatter included. */
  readonly text: string;
  /** The frontmatter parsed from SKILL.md (found equal to the entry's). */
  readonly frontmatter: SkillFrontmatter;
}

/** A verified supporting file. */
export interface SkillFileContent {
  /** The file's resource URI. */
  readonly uri: string;
  /** The file's raw bytes, verified against the entry's size and digest. */
  readonly bytes: Uint8Array;
  /** The bytes as text when they are UTF-8. */
  readonly text: string | undefined;
  /** The MIME type the server gave, if any. */
  readonly mimeType: string | undefined;
}

/** What the skills calls need of the client. */
export interface SkillsPeer {
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  readResource(uri: string): Promise<ReadResourceResult>;
  /** The server's capabilities, learnt (on the 2026-07-28 wire, discovered) if not yet known. */
  capabilities(): Promise<ServerCapabilities>;
}

/** The server's settings for the extension, or a `PROTOCOL` error when it did not declare it. */
async function skillsSettings(peer: SkillsPeer, what: string): Promise<Record<string, unknown>> {
  const extensions = (await peer.capabilities()).extensions;
  const settings =
    typeof extensions === 'object' && extensions !== null ? (extensions as Record<string, unknown>)[SKILLS_EXTENSION] : undefined;
  if (typeof settings !== 'object' || settings === null) {
    throw new JanusError('PROTOCOL', `${what}: the server does not declare the ${SKILLS_EXTENSION} extension`);
  }
  return settings as Record<string, unknown>;
}

/** `skills/list`, every page (an empty list proves nothing: SEP-2640 §Enumeration). Reads no skill file. */
export async function listSkills(peer: SkillsPeer): Promise<SkillEntry[]> {
  await skillsSettings(peer, 'listSkills');
  const out: SkillEntry[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const result = await peer.request('skills/list', cursor === undefined ? {} : { cursor });
    if (!Array.isArray(result.skills)) throw new JanusError('PROTOCOL', 'skills/list answered without a skills array');
    for (const s of result.skills) out.push(checkedEntry(s, `skills/list skills[${out.length}]`));
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') return out;
    if (seen.has(next)) throw new JanusError('PROTOCOL', 'skills/list repeated a cursor');
    seen.add(next);
    cursor = next;
  }
}

/** `skills/get`: the current entry of one skill, listed or not. */
export async function getSkill(peer: SkillsPeer, uri: string): Promise<SkillEntry> {
  await skillsSettings(peer, 'getSkill');
  const result = await peer.request('skills/get', { uri });
  const entry = checkedEntry(result.skill, 'skills/get skill');
  if (entry.uri !== uri) throw new JanusError('PROTOCOL', `skills/get for ${uri} answered with the entry of ${entry.uri}`);
  return entry;
}

/**
 * Loads a skill: its SKILL.md read now (never before), verified against the entry (size, then
 * digest, then frontmatter field by field). Given only a URI, the entry comes from `skills/get`.
 */
export async function loadSkill(peer: SkillsPeer, skill: string | SkillEntry): Promise<LoadedSkill> {
  const entry = typeof skill === 'string' ? await getSkill(peer, skill) : checkedEntry(skill, 'loadSkill');
  const bytes = await verifiedRead(peer, entry, entry.uri);
  const text = utf8Text(bytes);
  if (text === undefined) throw new SkillVerificationError('frontmatter', entry.uri, `${entry.uri} is not UTF-8 text`);
  await loadYaml();
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) throw new SkillVerificationError('frontmatter', entry.uri, `${entry.uri}: ${parsed.problem}`);
  const differ = frontmatterDifferences(parsed.frontmatter, entry.frontmatter);
  if (differ.length > 0) {
    throw new SkillVerificationError(
      'frontmatter',
      entry.uri,
      `${entry.uri}: its frontmatter differs from the entry's in ${differ.join(', ')}`,
    );
  }
  return { entry, root: skillRoot(entry.uri), text, frontmatter: entry.frontmatter };
}

/**
 * Reads a file of a skill by its path relative to the skill root (`references/FORMS.md`), only
 * if the entry lists it (SEP-2640: an unlisted file is a verification failure), verified.
 */
export async function readSkillFile(peer: SkillsPeer, entry: SkillEntry, path: string): Promise<SkillFileContent> {
  checkedEntry(entry, 'readSkillFile');
  const root = skillRoot(entry.uri);
  const uri = resolveInSkill(entry, root, path);
  let mimeType: string | undefined;
  const bytes = await verifiedRead(peer, entry, uri, (m) => (mimeType = m));
  return { uri, bytes, text: utf8Text(bytes), mimeType };
}

/** `resources/directory/read`, every page: the direct children of a directory resource. */
export async function readDirectory(peer: SkillsPeer, uri: string): Promise<Resource[]> {
  const settings = await skillsSettings(peer, 'readDirectory');
  // SEP-2640 §Capability Declaration: MUST NOT be called unless the server declared it.
  if (settings.directoryRead !== true) {
    throw new JanusError('PROTOCOL', `readDirectory: the server does not declare directoryRead for ${SKILLS_EXTENSION}`);
  }
  const out: Resource[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const result = await peer.request('resources/directory/read', cursor === undefined ? { uri } : { uri, cursor });
    if (!Array.isArray(result.resources)) throw new JanusError('PROTOCOL', 'resources/directory/read answered without a resources array');
    out.push(...(result.resources as Resource[]));
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') return out;
    if (seen.has(next)) throw new JanusError('PROTOCOL', 'resources/directory/read repeated a cursor');
    seen.add(next);
    cursor = next;
  }
}

/** Reads `uri` and checks it against its listing in `entry`: size first, then digest ("dynamic" skills: unverifiable, read as they are). */
async function verifiedRead(
  peer: SkillsPeer,
  entry: SkillEntry,
  uri: string,
  onMime?: (m: string | undefined) => void,
): Promise<Uint8Array> {
  const listed = entry.resources === 'dynamic' ? undefined : entry.resources.find((r) => r.uri === uri);
  if (entry.resources !== 'dynamic' && listed === undefined) {
    throw new SkillVerificationError('unlisted', uri, `${uri} is not listed in the entry of ${entry.uri}`);
  }
  const result = await peer.readResource(uri);
  const contents = Array.isArray(result.contents) ? result.contents : [];
  const content: { text?: unknown; blob?: unknown; mimeType?: string } | undefined =
    contents.find((c) => c.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  let bytes: Uint8Array | undefined;
  try {
    if (typeof content?.text === 'string') bytes = fileBytes(content.text);
    else if (typeof content?.blob === 'string') bytes = base64ToBytes(content.blob);
  } catch {
    bytes = undefined;
  }
  if (bytes === undefined) throw new SkillVerificationError('unreadable', uri, `resources/read of ${uri} returned no text or blob for it`);
  onMime?.(content?.mimeType);
  if (listed === undefined) return bytes;
  if (bytes.byteLength !== listed.size) {
    throw new SkillVerificationError('size', uri, `${uri} is ${bytes.byteLength} bytes; its entry says ${listed.size}`);
  }
  const digest = await sha256Digest(bytes);
  if (digest !== listed.digest)
    throw new SkillVerificationError('digest', uri, `${uri} has digest ${digest}; its entry says ${listed.digest}`);
  return bytes;
}

/** The skill root: the SKILL.md URI without `/SKILL.md` (SEP-2640 §Resource Mapping). */
function skillRoot(uri: string): string {
  return uri.slice(0, uri.lastIndexOf('/'));
}

/** `path` resolved against the skill root, as a URI the entry lists; refuses paths leaving the skill. */
function resolveInSkill(entry: SkillEntry, root: string, path: string): string {
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (segments.pop() === undefined) throw new SkillVerificationError('unlisted', path, `${path} leaves the skill ${entry.uri}`);
      continue;
    }
    segments.push(s);
  }
  if (segments.length === 0) throw new SkillVerificationError('unlisted', path, `${path} names no file of ${entry.uri}`);
  const raw = `${root}/${segments.join('/')}`;
  if (entry.resources === 'dynamic') return raw;
  const encoded = `${root}/${segments.map(encodeURIComponent).join('/')}`;
  return entry.resources.some((r) => r.uri === raw) ? raw : encoded;
}

/** An entry as SEP-2640 §Enumeration defines it, or a `PROTOCOL` error naming what is wrong (hosts MUST NOT load invalid entries). */
function checkedEntry(value: unknown, where: string): SkillEntry {
  const bad = (why: string) => new JanusError('PROTOCOL', `${where}: ${why}`);
  if (typeof value !== 'object' || value === null) throw bad('not a skill entry');
  const e = value as Record<string, unknown>;
  if (typeof e.uri !== 'string' || !e.uri.endsWith(`/${SKILL_FILE}`))
    throw bad(`uri ${JSON.stringify(e.uri)} is not the URI of a ${SKILL_FILE}`);
  const fm = e.frontmatter as Record<string, unknown> | undefined;
  if (typeof fm !== 'object' || fm === null || Array.isArray(fm) || typeof fm.name !== 'string' || typeof fm.description !== 'string') {
    throw bad('frontmatter is not an object with a name and a description');
  }
  if (e.resources !== 'dynamic') {
    if (!Array.isArray(e.resources)) throw bad('resources is neither an array nor "dynamic"');
    for (const r of e.resources as unknown[]) {
      const t = r as Partial<SkillResourceEntry> | null;
      if (
        typeof t !== 'object' ||
        t === null ||
        typeof t.uri !== 'string' ||
        typeof t.digest !== 'string' ||
        !DIGEST_PATTERN.test(t.digest) ||
        typeof t.size !== 'number' ||
        !Number.isInteger(t.size) ||
        t.size < 0
      ) {
        throw bad(`resources holds an invalid {uri, digest, size}: ${JSON.stringify(r)}`);
      }
    }
  }
  return value as SkillEntry;
}
