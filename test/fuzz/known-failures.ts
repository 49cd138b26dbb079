/**
 * Families of frames that still find a bug, set aside from the main fuzz properties until the
 * fix lands, like the conformance expected-failures lists: this list may only shrink.
 * known-failures.test.ts replays each entry's reproducer and fails once it passes, so a fixed
 * bug cannot stay listed (remove the entry and its family joins the main properties).
 */
import type { LegacyRevision } from '../support/common.js';
import type { Weights } from './plan.js';

export interface KnownFailure {
  /** The family (arbitraries.ts) the main properties leave out while this is listed. */
  readonly family: string;
  /** Where it fails. */
  readonly transports: ReadonlyArray<'stdio' | 'http'>;
  /** What goes wrong, and the file likely responsible. */
  readonly why: string;
  /** A minimal frame that shows it (as sent), on a channel with this session. */
  readonly reproducer: { readonly session: LegacyRevision | undefined; readonly text: string };
}

export const KNOWN_FAILURES: readonly KnownFailure[] = [];

/** Properties outside the frame families that still fail; the same rule: the list only shrinks. */
export const KNOWN_PROPERTY_FAILURES: ReadonlyArray<{ readonly property: string; readonly why: string }> = [];

/** How often each family comes up in a run. */
export const BASE_WEIGHTS: Weights = {
  'text/unparsable': 2,
  'json/non-object': 1,
  'envelope/invalid': 3,
  'envelope/response': 1,
  notification: 2,
  'modern/unknown-method': 2,
  'modern/envelope': 2,
  'modern/request': 5,
  'modern/listen': 1,
  'legacy/request': 4,
  'legacy/unknown-method': 2,
  batch: 2,
  'batch/unreadable-ids': 1,
  'batch/listen': 1,
  'prototype/names': 2,
  'prototype/completion': 1,
  'prototype/keys': 1,
  'prototype/poison': 1,
  'resources/uri': 1,
  'deep/moderate': 1,
  'deep/meta': 1,
  'deep/params': 1,
  'deep/envelope': 1,
  'huge-strings': 1,
};

/**
 * The weights of the main properties on one transport: every family except the known failures
 * there. JANUS_FUZZ_FAMILIES (comma-separated) picks families by name instead, known failures
 * included, to hunt or replay one.
 */
export function activeWeights(transport: 'stdio' | 'http'): Weights {
  const only = process.env.JANUS_FUZZ_FAMILIES?.split(',').filter((f) => f !== '');
  if (only?.length) return Object.fromEntries(only.map((f) => [f, BASE_WEIGHTS[f] ?? 1]));
  const out: Record<string, number> = { ...BASE_WEIGHTS };
  for (const k of KNOWN_FAILURES) if (k.transports.includes(transport)) delete out[k.family];
  return out;
}
