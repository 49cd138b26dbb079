/**
 * What the instances of one server share when several serve one endpoint (DESIGN.md
 * §Scale-out): `createServer({ cluster })`. `janus-mcp/redis` makes one on Redis; without one,
 * everything stays in this process.
 */
import type { Backplane } from './backplane.js';
import type { RequestStateStore } from './modern/request-state-store.js';

export interface Cluster {
  /** Registry changes and resource updates, delivered to every instance's sessions and listen streams. */
  readonly backplane: Backplane;
  /** MRTR `requestState` across instances: the sealing secrets (the first seals, all open) and the one-time-use records. */
  readonly requestState: {
    readonly secrets: readonly (string | Uint8Array)[];
    readonly store: RequestStateStore;
  };
}
