/**
 * Shared pieces of the client tests: a spy around the server side of an in-memory pair
 * (the transcript of what the client put on the wire), a scripted raw server for shapes
 * our own server never produces, the stdio fixtures, and handlers that count their calls.
 * Not a test file (no `.test` suffix).
 */
import { connect, type Client, type ConnectOptions } from '../../src/client/index.js';
import { spawnChannel } from '../../src/client/channels/spawn.js';
import type { Server } from '../../src/server/index.js';
import { createMemoryPair, type Transport } from '../../src/testing/index.js';
import { fixture, type Msg } from '../support/common.js';
import { delay } from '../support/wait.js';

export const FIXTURE_STDIO = fixture('client-server', 'stdio.js');
export const SILENT_LEGACY = fixture('client-raw', 'silent-legacy.js');

/** What crossed the wire, in order: `c2s` is what the client sent. */
export interface Wire {
  readonly log: Array<{ dir: 'c2s' | 's2c'; msg: Msg }>;
  /** Messages the client sent (optionally only those with `method`). */
  sent(method?: string): Msg[];
  /** Messages the server sent. */
  got(method?: string): Msg[];
}

export function newWire(): Wire {
  const log: Wire['log'] = [];
  const pick = (dir: 'c2s' | 's2c', method?: string) =>
    log.filter((e) => e.dir === dir && (method === undefined || e.msg.method === method)).map((e) => e.msg);
  return { log, sent: (m) => pick('c2s', m), got: (m) => pick('s2c', m) };
}

/** Wraps the server side of a memory pair so every message in either direction is recorded. */
export function spy(t: Transport, w: Wire): Transport {
  return {
    start: (h) => t.start({ ...h, onMessage: (m) => (w.log.push({ dir: 'c2s', msg: m as Msg }), h.onMessage(m)) }),
    send: (m) => (w.log.push({ dir: 's2c', msg: m as Msg }), t.send(m)),
    close: () => t.close(),
  };
}

/** This project's server and client over an in-memory pair, with the wire recorded. */
export async function inMemory(
  server: Server,
  options: ConnectOptions = {},
): Promise<{ client: Client; wire: Wire; server: Server; close(): Promise<void> }> {
  const [clientSide, serverSide] = createMemoryPair();
  const w = newWire();
  await server.connect(spy(serverSide, w));
  const client = await connect(clientSide, options);
  return { client, wire: w, server, close: async () => (await client.close(), server.close()) };
}

/**
 * A raw server on the other end of a memory pair: `answer` returns a result, `{ error }`,
 * or undefined for silence. Notifications are recorded but not answered.
 */
export type Answer = (msg: Msg, wire: Wire) => Msg | { error: Msg } | undefined | Promise<Msg | { error: Msg } | undefined>;

export function scripted(answer: Answer): { transport: Transport; wire: Wire; push(msg: Msg): void } {
  const [clientSide, serverSide] = createMemoryPair();
  const w = newWire();
  const s = spy(serverSide, w);
  void s.start({
    onMessage: async (m) => {
      const msg = m as Msg;
      if (typeof msg.method !== 'string' || msg.id === undefined) return;
      const out = await answer(msg, w);
      if (out === undefined) return;
      await s.send(
        'error' in out && Object.keys(out).length === 1
          ? { jsonrpc: '2.0', id: msg.id, error: out.error }
          : { jsonrpc: '2.0', id: msg.id, result: out as Msg },
      );
    },
  });
  return { transport: clientSide, wire: w, push: (msg) => void s.send(msg as never) };
}

/** A standard legacy `initialize` answer for scripted servers. */
export function initializeResult(msg: Msg, name = 'scripted'): Msg {
  return { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name, version: '1' } };
}

/** Spawns a fixture script with node as a stdio child we own, by PID. */
export function spawnFixture(script: string, env: Record<string, string> = {}, args: string[] = []) {
  return spawnChannel({ command: process.execPath, args: [script, ...args], env, stderr: 'ignore' });
}

export function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

/**
 * `onElicit`, `onSample` and `onRoots` that count their calls and record when each call
 * starts and ends. Every handler yields once before answering, so asks made in one round
 * all start before any of them ends.
 */
export function askHandlers(elicitContent: Record<string, any> = { name: 'Ada' }) {
  const events: string[] = [];
  const calls = { elicit: 0, sample: 0, roots: 0 };
  const seen: { elicit: Msg[]; sample: Msg[] } = { elicit: [], sample: [] };
  const answer: { content: Record<string, any> } = { content: elicitContent };
  /**
   * How many asks the next round should hold open together. A handler does not end until
   * that many have started (or, should they never come, a generous 2 s), so "asked
   * together" shows in the events however slowly the messages travel on a loaded machine.
   */
  const round = { expected: 1, started: 0, wake: () => {} };
  const together = (n: number) => {
    round.expected = n;
    round.started = 0;
  };
  /** Counts a call, marks its start, waits for the rest of its round, marks its end, then answers. */
  const counted = async <T>(kind: keyof typeof calls, reply: () => T): Promise<T> => {
    calls[kind]++;
    events.push(`start:${kind}`);
    round.started++;
    round.wake();
    const deadline = Date.now() + 2000;
    while (round.started < round.expected && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        round.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
    await delay(1);
    events.push(`end:${kind}`);
    return reply();
  };
  const options = {
    onElicit: (params: unknown) => (
      seen.elicit.push(params as Msg), counted('elicit', () => ({ action: 'accept' as const, content: answer.content }))
    ),
    onSample: (params: unknown) => (
      seen.sample.push(params as Msg),
      counted('sample', () => ({ role: 'assistant' as const, content: { type: 'text' as const, text: 'hi there' }, model: 'test-model' }))
    ),
    onRoots: () => counted('roots', () => [{ uri: 'file:///work', name: 'work' }]),
  } satisfies ConnectOptions;
  return { options, calls, events, seen, answer, together };
}

/** Whether elicitation exists in a revision (2025-06-18 added it). */
export const hasElicitation = (rev: string) => rev >= '2025-06-18';
