/**
 * A client of one era on an in-memory pair, for the server middleware suites
 * (test/server/middleware*.test.ts): a fresh server configured by the test, its `onError`
 * collected, and a peer that checks every server message against the revision's schema.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from '../../src/server/index.js';
import { MODERN, type Msg } from './common.js';
import { handshake, MemoryPeer, modernMeta } from './peer.js';

export interface Era {
  readonly label: string;
  readonly revision: string;
  readonly modern: boolean;
}

export const ERAS: readonly Era[] = [
  { label: 'legacy 2025-11-25', revision: '2025-11-25', modern: false },
  { label: 'legacy 2024-11-05', revision: '2024-11-05', modern: false },
  { label: 'modern 2026-07-28', revision: MODERN, modern: true },
];
export const LEGACY_ERAS = ERAS.filter((e) => !e.modern);
export const MODERN_ERA = ERAS.find((e) => e.modern)!;

/** A client of one era on an in-memory pair: a request is a session request or carries the `_meta` envelope. */
export interface Client {
  readonly peer: MemoryPeer;
  call(method: string, params?: Record<string, unknown>, id?: number | string): Promise<Msg>;
  /** Sends a request whose answer the test does not wait for (sendRaw: its answer lands in the inbox). */
  send(method: string, params: Record<string, unknown>, id: number | string): void;
  notify(method: string, params?: Record<string, unknown>): void;
}

export const CAPS = { elicitation: {} };

/**
 * Runs `fn` against a fresh server that `setup` configured, its `onError` collected in
 * `errors`. Legacy eras complete the handshake first unless `handshake: false`; closing the
 * peer fails the test on any message that broke the revision's schema.
 */
export async function withClient(
  era: Era,
  setup: (server: Server) => void,
  fn: (client: Client, errors: unknown[], server: Server) => Promise<void>,
  opts: { handshake?: boolean } = {},
): Promise<void> {
  const errors: unknown[] = [];
  const server = createServer({ name: 'mw', version: '1.0.0', onError: (e) => errors.push(e) });
  setup(server);
  const peer = await MemoryPeer.connect(server, { revision: era.revision });
  try {
    if (!era.modern && opts.handshake !== false) {
      await handshake(peer, era.revision, CAPS);
      await peer.barrier(); // notifications/initialized has been handled
    }
    const withEnvelope = (params: Record<string, unknown>) =>
      era.modern ? { ...params, _meta: { ...modernMeta(CAPS), ...(params._meta as object) } } : params;
    const client: Client = {
      peer,
      call: (method, params = {}, id) =>
        era.modern ? peer.modern(method, params, { caps: CAPS, id }) : peer.request(method, params, { id }),
      send: (method, params, id) => peer.sendRaw({ jsonrpc: '2.0', id, method, params: withEnvelope(params) }),
      notify: (method, params = {}) => peer.notify(method, withEnvelope(params)),
    };
    await fn(client, errors, server);
  } finally {
    await peer.close();
    server.close();
  }
}

export const texts = (r: Msg): string[] => {
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.result.content.map((b: Msg) => b.text);
};
export const tool = (name: string, args: Record<string, unknown> = {}) => ['tools/call', { name, arguments: args }] as const;
