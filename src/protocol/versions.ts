/**
 * Protocol revisions and the two eras they belong to
 * (docs/2026-07-28/basic/versioning.mdx §Terminology).
 */

export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export const MODERN_VERSIONS = ['2026-07-28'] as const;

export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export type ProtocolVersion = LegacyVersion | ModernVersion;
export type Era = 'legacy' | 'modern';

/** Every revision this library speaks, oldest first. */
export const ALL_VERSIONS: readonly ProtocolVersion[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];
/** The newest handshake-era revision: what `initialize` falls back to and a legacy client offers. */
export const LATEST_LEGACY_VERSION: LegacyVersion = LEGACY_VERSIONS.at(-1)!;
/** The newest revision of all, a modern one: what a client probes with. */
export const LATEST_VERSION: ModernVersion = MODERN_VERSIONS.at(-1)!;

export function isLegacyVersion(v: unknown): v is LegacyVersion {
  return typeof v === 'string' && (LEGACY_VERSIONS as readonly string[]).includes(v);
}

export function isModernVersion(v: unknown): v is ModernVersion {
  return typeof v === 'string' && (MODERN_VERSIONS as readonly string[]).includes(v);
}

export function isKnownVersion(v: unknown): v is ProtocolVersion {
  return isLegacyVersion(v) || isModernVersion(v);
}

export function eraOf(v: ProtocolVersion): Era {
  return isModernVersion(v) ? 'modern' : 'legacy';
}

/** Revisions are ISO dates, so string order is release order. */
export function atLeast(v: ProtocolVersion, than: ProtocolVersion): boolean {
  return v >= than;
}
