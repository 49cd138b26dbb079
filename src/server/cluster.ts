/**
 * What the instances of one server share when several serve one endpoint (docs/scale-out.md):
 * `createServer({ cluster })`. `janus-mcp/redis` makes one on Redis; without one,
 * everything stays in this process.
 */
import type { Backplane } from './backplane.js';
import type { RequestStateStore } from './modern/request-state-store.js';
import type { EventStore, SessionStore } from './session-store.js';
import type { Secret, SecretRing } from './modern/secret-ring.js';
import type { TaskStore } from '../extensions/tasks/store.js';

export interface Cluster {
  /** Registry changes and resource updates, delivered to every instance's sessions and listen streams. */
  readonly backplane: Backplane;
  /**
   * MRTR `requestState` across instances: the sealing secrets (a fixed list, the first seals and
   * all open, or a `SecretRing` that changes while running) and the one-time-use records.
   */
  readonly requestState: {
    readonly secrets: readonly Secret[] | SecretRing;
    readonly store: RequestStateStore;
  };
  /**
   * Legacy (2025 Streamable HTTP) sessions any instance serves: their records and the signals
   * between instances. Absent: a session is served by the instance that opened it.
   */
  readonly sessions?: SessionStore;
  /** Where SSE events are kept so a client resumes its stream on any instance (the HTTP transport's default `eventStore`). */
  readonly events?: EventStore;
  /** Task records (tasks extension, both designs): a task created on one instance is read, updated and cancelled on any. */
  readonly tasks?: TaskStore;
}
