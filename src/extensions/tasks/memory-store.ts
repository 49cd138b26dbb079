/**
 * The default task store: this process only. Records expire `ttlMs` after creation (ext-tasks
 * §Task Polling: the server MAY discard a task after its TTL), checked on every read and swept
 * in the background by an unref'd timer, so expired tasks neither answer nor pile up. Leases
 * (`keepLeases`) work as on a shared store, for servers of one process that share one store;
 * the ids of the leased tasks are kept apart, so a look goes over those only.
 */
import type { InputRequest } from '../../protocol/types.js';
import { TERMINAL, type TaskChange, type TaskRecord, type TaskSignal, type TaskStore } from './store.js';

/** How an {@link InMemoryTaskStore} sweeps expired records. */
export interface InMemoryTaskStoreOptions {
  /** How often expired records are swept (default 60 s). */
  sweepMs?: number;
}

interface Held {
  record: TaskRecord;
  /** Epoch ms after which it is gone; Infinity for `ttlMs: null`. */
  expires: number;
  /** Creation order, for `list` cursors. */
  seq: number;
}

/**
 * A {@link TaskStore} in this process's memory: the default for one process. Expired tasks are
 * dropped on read and swept in the background.
 */
export class InMemoryTaskStore implements TaskStore {
  readonly instanceId = '';
  private readonly held = new Map<string, Held>();
  private readonly handlers = new Set<(signal: TaskSignal) => void>();
  /** The ids of the tasks with a lease (`leaseUntil`), so that `keepLeases` looks at those only. */
  private readonly leased = new Set<string>();
  private seq = 0;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: InMemoryTaskStoreOptions = {}) {}

  /** Live records (for tests and stats). */
  get size(): number {
    return this.held.size;
  }

  async create(record: TaskRecord): Promise<void> {
    const created = Date.parse(record.createdAt);
    const expires = record.ttlMs === null ? Number.POSITIVE_INFINITY : created + record.ttlMs;
    this.held.set(record.taskId, { record: copy(record), expires, seq: this.seq++ });
    if (record.leaseUntil !== undefined) this.leased.add(record.taskId);
    else this.leased.delete(record.taskId);
    this.sweeper ??= startSweeper(this, this.options.sweepMs ?? 60_000);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const held = this.live(taskId);
    return held && copy(held.record);
  }

  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const held = this.live(taskId);
    if (held === undefined || TERMINAL.has(held.record.status)) return undefined;
    const r = held.record;
    if (change.status !== undefined) r.status = change.status;
    if (change.statusMessage !== undefined) r.statusMessage = change.statusMessage;
    if (change.pollIntervalMs !== undefined) r.pollIntervalMs = change.pollIntervalMs;
    // Copies, as create takes one: the caller's later edits must not reach the store.
    if (change.result !== undefined) r.result = clone(change.result);
    if (change.error !== undefined) r.error = clone(change.error);
    if (change.ttlMs !== undefined) {
      r.ttlMs = change.ttlMs;
      held.expires = change.ttlMs === null ? Number.POSITIVE_INFINITY : Date.parse(r.createdAt) + change.ttlMs;
    }
    // A terminal task asks for nothing more, and nobody holds it.
    if (TERMINAL.has(r.status)) {
      delete r.inputRequests;
      delete r.leaseUntil;
      this.leased.delete(taskId);
    }
    r.lastUpdatedAt = new Date().toISOString();
    return copy(r);
  }

  async addInput(taskId: string, key: string, request: InputRequest): Promise<TaskRecord | undefined> {
    const held = this.live(taskId);
    if (held === undefined || TERMINAL.has(held.record.status)) return undefined;
    const r = held.record;
    r.inputRequests = { ...r.inputRequests, [key]: clone(request) };
    r.status = 'input_required';
    r.lastUpdatedAt = new Date().toISOString();
    return copy(r);
  }

  async answer(
    taskId: string,
    responses: Record<string, unknown>,
  ): Promise<{ taken: Record<string, unknown>; record: TaskRecord } | undefined> {
    const held = this.live(taskId);
    if (held === undefined || TERMINAL.has(held.record.status)) return undefined;
    const r = held.record;
    const taken: Record<string, unknown> = {};
    const pending = { ...r.inputRequests };
    for (const [key, response] of Object.entries(responses)) {
      if (!Object.hasOwn(pending, key)) continue;
      Object.defineProperty(taken, key, { value: response, enumerable: true, writable: true, configurable: true });
      delete pending[key];
    }
    if (Object.keys(taken).length > 0) {
      if (Object.keys(pending).length === 0) {
        delete r.inputRequests;
        if (r.status === 'input_required') r.status = 'working';
      } else {
        r.inputRequests = pending;
      }
      r.lastUpdatedAt = new Date().toISOString();
    }
    return { taken, record: copy(r) };
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ records: TaskRecord[]; nextCursor?: string }> {
    const after = cursor === undefined ? -1 : Number(cursor);
    const mine = [...this.held.values()]
      .filter((h) => h.record.owner === owner && h.seq > after && h.expires > Date.now())
      .sort((a, b) => a.seq - b.seq);
    const size = Math.max(1, limit); // a page of none would never advance (and had no last record for the cursor)
    const page = mine.slice(0, size);
    const records = page.map((h) => copy(h.record));
    return mine.length > size ? { records, nextCursor: String(page[page.length - 1]!.seq) } : { records };
  }

  async keepLeases(
    runner: string,
    holding: readonly string[],
    leaseMs: number,
    limit: number,
  ): Promise<{ lost: string[]; claimed: TaskRecord[] }> {
    const now = Date.now();
    const until = now + leaseMs;
    const lost: string[] = [];
    for (const taskId of holding) {
      const held = this.live(taskId);
      if (held === undefined || TERMINAL.has(held.record.status) || held.record.runner !== runner) lost.push(taskId);
      else {
        held.record.leaseUntil = until;
        this.leased.add(taskId);
      }
    }
    const claimed: TaskRecord[] = [];
    for (const taskId of [...this.leased]) {
      if (claimed.length >= limit) break;
      const held = this.live(taskId);
      if (held === undefined || TERMINAL.has(held.record.status) || held.record.leaseUntil === undefined) {
        this.leased.delete(taskId);
        continue;
      }
      const r = held.record;
      if (r.leaseUntil! >= now) continue;
      r.runner = runner;
      r.leaseUntil = until;
      r.runs = (r.runs ?? 1) + 1;
      r.status = 'working';
      delete r.inputRequests;
      r.lastUpdatedAt = new Date(now).toISOString();
      claimed.push(copy(r));
    }
    return { lost, claimed };
  }

  async signal(_runner: string, signal: TaskSignal): Promise<void> {
    for (const h of this.handlers) h(signal);
  }

  onSignal(handler: (signal: TaskSignal) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  close(): void {
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Drops expired records; called by the sweeper. */
  sweep(now = Date.now()): void {
    for (const [id, h] of this.held) {
      if (h.expires > now) continue;
      this.held.delete(id);
      this.leased.delete(id);
    }
  }

  private live(taskId: string): Held | undefined {
    const held = this.held.get(taskId);
    if (held === undefined) return undefined;
    if (held.expires <= Date.now()) {
      this.held.delete(taskId);
      this.leased.delete(taskId);
      return undefined;
    }
    return held;
  }
}

function startSweeper(store: InMemoryTaskStore, every: number): ReturnType<typeof setInterval> {
  const timer = setInterval(() => store.sweep(), every);
  timer.unref?.();
  return timer;
}

/** Records are handed out as copies: a caller's edits never reach the store unasked. */
function copy(record: TaskRecord): TaskRecord {
  return clone(record);
}

/** What `plainCopy` returns for a value it leaves to `structuredClone`. */
const NOT_PLAIN: unique symbol = Symbol('not plain');

/**
 * `structuredClone(value)`, by hand for plain data: a record and a tool's result are a few
 * small objects, which `structuredClone` (a serialization round trip) copies in 2.6 µs (a
 * completed record, Node 20, optimized code), three times per task; by hand, 0.5 µs. Anything that is not plain data
 * (another prototype, an array with holes or extra keys, an own `__proto__` key, a function,
 * a symbol, an object met twice: a cycle or a shared branch) goes to `structuredClone`, so the
 * copy, or the error, is what it would have made.
 */
export function clone<T>(value: T): T {
  const out = plainCopy(value, new Set());
  return out === NOT_PLAIN ? structuredClone(value) : (out as T);
}

function plainCopy(value: unknown, seen: Set<object>): unknown {
  if (typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? NOT_PLAIN : value;
  if (value === null) return value;
  if (seen.has(value)) return NOT_PLAIN;
  seen.add(value);
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const from = value as unknown[];
    const n = from.length;
    if (Object.keys(from).length !== n) return NOT_PLAIN; // holes or extra keys
    const to: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const item = plainCopy(from[i], seen);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      to.push(item);
    }
    return to;
  }
  if (proto !== Object.prototype) return NOT_PLAIN;
  const from = value as Record<string, unknown>;
  const to: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (key === '__proto__') return NOT_PLAIN;
    const item = plainCopy(from[key], seen);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    to[key] = item;
  }
  return to;
}
