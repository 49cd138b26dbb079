/**
 * The names of what janus-mcp/redis keeps on Redis, all under the deployment's prefix. Keys
 * that one script reads or writes together share a hash tag (the part in braces): a Redis
 * Cluster runs a script only when all its keys are in one slot, and the same names are used on
 * every topology, so a deployment moves from one Redis to a cluster without renaming anything.
 *
 * - `{<prefix>registry}:…`: the list change counters and the channel changes are published on
 *   (counted and published in one step).
 * - `{<prefix>mrtr}:…`: the ring of sealing secrets, its epoch, the channel rotations are
 *   announced on, and the one-time-use records of `requestState` (checked against the epoch in
 *   one step). One slot: a claim is one small SET there.
 * - `{<prefix>sessions}:…`: when each handshake-era session expires, swept by every instance
 *   so that one runs the session's `onClosed` (each entry is claimed in one step there).
 * - per session, per SSE stream, per task: their own tags, spread over the shards.
 */

/** The list change counters, bumped as a change is published. */
export const listsKey = (prefix: string): string => `{${prefix}registry}:lists`;
/** The channel registry changes and resource updates go out on. */
export const eventsChannel = (prefix: string): string => `{${prefix}registry}:events`;

/** The sorted set of sealing secrets, scored by when each starts sealing. */
export const ringKey = (prefix: string): string => `{${prefix}mrtr}:secrets`;
/** When the shared store last started from nothing (ms since the epoch). */
export const epochKey = (prefix: string): string => `{${prefix}mrtr}:epoch`;
/** The channel a change of the ring is announced on (the message carries no secret). */
export const rotatedChannel = (prefix: string): string => `{${prefix}mrtr}:rotated`;
/** The record that a `requestState` was used. */
export const usedKey = (prefix: string, id: string): string => `{${prefix}mrtr}:used:${id}`;

/** The sorted set of handshake-era sessions by expiry (ms since the epoch, Redis's clock). */
export const sessionExpiryKey = (prefix: string): string => `{${prefix}sessions}:expiry`;
