/**
 * What one instance keeps of the shared session records it serves (session-store.ts): a copy
 * per session, used without Redis until its lease ends or another instance tells it to drop
 * it, and the deployment's list change counters as last read.
 *
 * A load that was under way when a drop arrived may carry what Redis held before the write
 * that caused the drop; each session's generation, bumped by every drop, keeps such a load
 * from becoming the copy (it still answers the request that asked for it).
 */

import type { SessionRecord } from '../../server/legacy/spi.js';

/** A session's record as Redis held it, and how long this instance may use it without asking again. */
export interface Copy {
  readonly fields: ReadonlyMap<string, string>;
  readonly subscriptions: readonly string[];
  /** Until when (`performance.now()`) the copy may be used: its lease, counted from before the load was sent. */
  readonly validUntil: number;
  /** From when a request renews it in the background (half the lease). */
  readonly renewAt: number;
  /** The record as last made from it, and the counters it was made with (the same counters give the same record). */
  made?: { readonly lists: Lists; readonly record: SessionRecord };
}

interface Entry {
  copy: Copy | undefined;
  /** Bumped by every drop: a load that began before one does not become the copy. */
  generation: number;
  /** Loads under way. */
  loads: number;
  renewing: boolean;
}

/** A load under way: what it must find unchanged to become the copy. */
export interface LoadTicket {
  readonly entry: Entry;
  readonly generation: number;
}

export class SessionCopies {
  readonly #entries = new Map<string, Entry>();

  /** The copy while its lease lasts; an ended one is dropped. */
  valid(id: string, now: number): Copy | undefined {
    const entry = this.#entries.get(id);
    const copy = entry?.copy;
    if (copy === undefined) return undefined;
    if (now < copy.validUntil) return copy;
    entry!.copy = undefined;
    this.#tidy(id, entry!);
    return undefined;
  }

  /** Whether a background renewal may start now (one at a time per session). */
  renewing(id: string): boolean {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.renewing) return false;
    entry.renewing = true;
    return true;
  }

  renewed(id: string): void {
    const entry = this.#entries.get(id);
    if (entry !== undefined) {
      entry.renewing = false;
      this.#tidy(id, entry);
    }
  }

  begin(id: string): LoadTicket {
    let entry = this.#entries.get(id);
    if (entry === undefined) {
      entry = { copy: undefined, generation: 0, loads: 0, renewing: false };
      this.#entries.set(id, entry);
    }
    entry.loads++;
    return { entry, generation: entry.generation };
  }

  /**
   * A load ended: `copy` becomes the session's copy unless a drop came meanwhile; undefined (the
   * session is gone, or the copy may not be kept) leaves none.
   */
  end(id: string, ticket: LoadTicket, copy: Copy | undefined): void {
    const entry = ticket.entry;
    entry.loads--;
    if (this.#entries.get(id) !== entry) return;
    if (entry.generation === ticket.generation) entry.copy = copy;
    this.#tidy(id, entry);
  }

  /** A load failed: the copy, if any, stays until its lease ends. */
  failed(id: string, ticket: LoadTicket): void {
    ticket.entry.loads--;
    if (this.#entries.get(id) === ticket.entry) this.#tidy(id, ticket.entry);
  }

  /** The session changed (or ended): the copy goes, and no load begun before now becomes one. */
  drop(id: string): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    entry.copy = undefined;
    entry.generation++;
    this.#tidy(id, entry);
  }

  /** Every copy goes (this instance may have missed drops). */
  dropAll(): void {
    for (const [id, entry] of [...this.#entries]) {
      entry.copy = undefined;
      entry.generation++;
      this.#tidy(id, entry);
    }
  }

  /** The sessions this instance holds a copy of. */
  held(): string[] {
    const out: string[] = [];
    for (const [id, entry] of this.#entries) if (entry.copy !== undefined) out.push(id);
    return out;
  }

  #tidy(id: string, entry: Entry): void {
    if (entry.copy === undefined && entry.loads === 0 && !entry.renewing) this.#entries.delete(id);
  }
}

export type Lists = Readonly<Record<string, string>>;

const count = (value: string | undefined): number => Number(value ?? '0') || 0;

/**
 * The deployment's list change counters (`{<prefix>registry}:lists`), as last read: fresh until
 * the backplane announces a list change (or this instance may have missed one), then read again
 * by the next request that needs them. Reads are made one at a time (session-store.ts), so the
 * last one is the newest, also when Redis lost its data and counts from zero again.
 */
export class ListCounters {
  #values: Lists = {};
  #stale = true;
  #changes = 0;

  /** A list changed (the backplane's event arrived), or this instance may have missed one. */
  changed(): void {
    this.#changes++;
    this.#stale = true;
  }

  /** The counters, when no change was announced since they were read. */
  get fresh(): Lists | undefined {
    return this.#stale ? undefined : this.#values;
  }

  /** Taken before a read: `take` keeps the counters stale if a change was announced meanwhile. */
  get mark(): number {
    return this.#changes;
  }

  /** Takes a read; the same object while no counter moved, so records made from it need not be made again. */
  take(read: Lists, mark: number): Lists {
    if (!sameCounts(read, this.#values)) this.#values = read;
    if (mark === this.#changes) this.#stale = false;
    return this.#values;
  }
}

function sameCounts(a: Lists, b: Lists): boolean {
  const kinds = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const kind of kinds) if (count(a[kind]) !== count(b[kind])) return false;
  return true;
}
