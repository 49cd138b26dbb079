/**
 * Protocol revisions and the two eras they belong to
 * (docs/2026-07-28/basic/versioning.mdx §Terminology).
 *
 * The names are data: the revisions table (revisions.ts) adds each revision it holds, and a
 * revision registered at run time (`registerRevision`) is added the same way. Its type comes
 * from `KnownRevisions`, which a program that registers one extends by declaration merging:
 *
 * ```ts
 * declare module 'janus-mcp/protocol' {
 *   interface KnownRevisions { '2027-01-01': 'modern' }
 * }
 * ```
 */

/** Every revision this library knows, by name, with its era. */
export interface KnownRevisions {
  '2024-11-05': 'legacy';
  '2025-03-26': 'legacy';
  '2025-06-18': 'legacy';
  '2025-11-25': 'legacy';
  '2026-07-28': 'modern';
}

/** The two eras: `legacy`, the handshake era (`initialize`, sessions), and `modern`, the stateless era (2026-07-28 on). */
export type Era = 'legacy' | 'modern';
/** The name of a revision this library knows (a date, `2025-11-25`), of either era. */
export type ProtocolVersion = keyof KnownRevisions & string;
type InEra<E extends Era> = { [V in ProtocolVersion]: KnownRevisions[V] extends E ? V : never }[ProtocolVersion];
/** A handshake-era revision (2024-11-05 … 2025-11-25). */
export type LegacyVersion = InEra<'legacy'>;
/** A stateless-era revision (2026-07-28 and later). */
export type ModernVersion = InEra<'modern'>;

// Kept in release order (revisions are ISO dates, so string order is release order).
const legacy: LegacyVersion[] = [];
const modern: ModernVersion[] = [];
const all: ProtocolVersion[] = [];
const eras = new Map<string, Era>();

/** The handshake-era revisions, oldest first. */
export const LEGACY_VERSIONS: readonly LegacyVersion[] = legacy;
/** The stateless-era revisions, oldest first. */
export const MODERN_VERSIONS: readonly ModernVersion[] = modern;
/** Every revision this library speaks, oldest first. */
export const ALL_VERSIONS: readonly ProtocolVersion[] = all;

/** The newest handshake-era revision: what `initialize` falls back to and a legacy client offers. */
export const LATEST_LEGACY_VERSION: LegacyVersion = '2025-11-25';

/** The newest revision of all, a modern one: what a client probes with. */
export function latestVersion(): ModernVersion {
  return modern.at(-1)!;
}

function insert<T extends string>(list: T[], v: T): void {
  list.push(v);
  list.sort();
}

/**
 * Adds a revision's name (the revisions table does, for each of its entries). A name is added
 * once; one that is already known in another era is refused.
 * @internal
 */
export function addVersion(v: string, era: Era): void {
  const known = eras.get(v);
  if (known === era) return;
  if (known !== undefined) throw new Error(`protocol revision ${v} is already known, in the ${known} era`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) throw new Error(`a protocol revision is named by its date (YYYY-MM-DD), not ${JSON.stringify(v)}`);
  eras.set(v, era);
  // The name's type is the caller's declaration (KnownRevisions): from here on it is known.
  const name = v as ProtocolVersion;
  if (era === 'legacy') insert(legacy, name as LegacyVersion);
  else insert(modern, name as ModernVersion);
  insert(all, name);
}

/** Whether `v` names a known handshake-era revision. */
export function isLegacyVersion(v: unknown): v is LegacyVersion {
  return typeof v === 'string' && eras.get(v) === 'legacy';
}

/** Whether `v` names a known stateless-era revision. */
export function isModernVersion(v: unknown): v is ModernVersion {
  return typeof v === 'string' && eras.get(v) === 'modern';
}

/** Whether `v` names a revision this library knows, of either era. */
export function isKnownVersion(v: unknown): v is ProtocolVersion {
  return typeof v === 'string' && eras.has(v);
}

/** The era revision `v` belongs to. */
export function eraOf(v: ProtocolVersion): Era {
  return eras.get(v) ?? 'modern';
}
