/**
 * eras.ts of a build without the handshake era (`npm run build:modern-only`): no session or
 * event store on Redis; the cluster shares registry changes, `requestState` and task records.
 */
import { JanusError } from '../errors/index.js';
import type { LegacyStores } from './era.js';

export const LEGACY_STORES: LegacyStores | undefined = undefined;

/** No handshake-era sessions in this build. */
export type RedisEventStoreOptions = Record<never, never>;
export type RedisSessionStoreOptions = Record<never, never>;

function leftOut(): never {
  throw new JanusError('PROTOCOL', 'this build of janus-mcp serves only 2026-07-28: it has no handshake-era sessions or events to store');
}

export class RedisEventStore {
  constructor() {
    leftOut();
  }
}

export class RedisSessionStore {
  constructor() {
    leftOut();
  }
}
