/**
 * Which downstream call an upstream question belongs to. The upstream client answers a
 * server's questions (elicitation, sampling, roots) through one set of handlers; the proxy
 * finds the call they belong to by the async context of the upstream call: exact where the
 * question travels inside that call (a 2026-07-28 `input_required` round, a handshake-era
 * request on the call's own HTTP response stream). Over stdio a handshake-era server's request
 * carries nothing that names its call (no such field exists in any revision), so the proxy
 * falls back on the call in flight, the latest one started when several are (docs/proxy.md §Limits).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CreateMessageParams, ElicitParams, LoggingLevel } from '../protocol/index.js';

/**
 * A server-to-client request the upstream may send during a call, with its params as the
 * upstream client's handler (`onElicit`, `onSample`, `onRoots`) received them.
 */
export type Question =
  | [method: 'elicitation/create', params: ElicitParams]
  | [method: 'sampling/createMessage', params: CreateMessageParams]
  | [method: 'roots/list', params: Record<string, never>];

/** The method of a `Question`. */
export type AskMethod = Question[0];

/** Whoever answers the upstream's questions and takes its log messages during one call. */
export interface Asker {
  ask(...question: Question): Promise<object>;
  /** Whether the downstream client declared what a question needs (true while it is not known yet). */
  declares(capability: 'elicitation' | 'sampling' | 'roots'): boolean;
  log(level: LoggingLevel, data: unknown, logger?: string): void;
}

/** The asker of the upstream call whose async context this is. */
export const callScope = new AsyncLocalStorage<Asker>();

/** Calls in flight upstream, oldest first: the fallback when the async context names none. */
export class InFlight {
  private readonly calls = new Set<Asker>();

  async run<T>(asker: Asker, work: () => Promise<T>): Promise<T> {
    this.calls.add(asker);
    try {
      return await callScope.run(asker, work);
    } finally {
      this.calls.delete(asker);
    }
  }

  /** The asker for a question or log arriving now. */
  current(): Asker | undefined {
    const scoped = callScope.getStore();
    if (scoped) return scoped;
    let latest: Asker | undefined;
    for (const a of this.calls) latest = a;
    return latest;
  }
}
