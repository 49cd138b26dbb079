/**
 * JSON text as a fuzzer sends it. Generated values are trees of plain JSON, `Entries` (an
 * object given as its key/value pairs, so keys such as `__proto__` stay ordinary own keys
 * on our side as they are in the peer's `JSON.parse`) and `RawJson` (text written as is:
 * nesting thousands of levels deep, which `JSON.stringify` cannot write because V8 recurses).
 * Request ids are placeholders (`FreshId`, `IdRef`) that `render` fills in with ids unique on
 * the channel, so that every answer can be matched to its request across a whole fuzz run.
 * `render` writes one line of JSON; `depthOf` measures parsed values without recursion.
 */
import type { Id } from '../support/common.js';

/** JSON text inserted verbatim; `label` names it in reports ("array nested 3000 deep"). */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
  toString(): string {
    return `<${this.label}>`;
  }
}

/** An object as its entries, in order; duplicate keys are allowed (the peer's parser keeps the last). */
export class Entries {
  constructor(readonly entries: ReadonlyArray<readonly [string, WireValue]>) {}
}

/** The shapes a request id takes on the wire (basic/index.mdx §Requests: a string or an integer). */
export type IdShape = 'integer' | 'negative' | 'large' | 'string' | 'numeric-string';

/** A request id that `render` makes unique on the channel; `salt` goes into string ids. */
export class FreshId {
  constructor(
    readonly shape: IdShape,
    readonly salt: string,
  ) {}
}

/** The id of the `index`-th fresh id of the same run (modulo their count), e.g. the target of a `notifications/cancelled`. */
export class IdRef {
  constructor(readonly index: number) {}
}

export type WireValue =
  | null
  | boolean
  | number
  | string
  | RawJson
  | Entries
  | FreshId
  | IdRef
  | readonly WireValue[]
  | { readonly [key: string]: WireValue };

/** Gives out channel-unique ids and remembers those of the current run. */
export class IdAllocator {
  #next = 1;
  #run: Id[] = [];

  /** Starts a run: `IdRef`s refer to the fresh ids rendered from now on. */
  startRun(): void {
    this.#run = [];
  }

  fresh(shape: IdShape, salt: string): Id {
    const n = this.#next++;
    const id: Id =
      shape === 'integer'
        ? n
        : shape === 'negative'
          ? -n
          : shape === 'large'
            ? Number.MAX_SAFE_INTEGER - n
            : shape === 'numeric-string'
              ? String(n)
              : `${n}:${salt}`;
    this.#run.push(id);
    return id;
  }

  /** The referenced id, or a number no request of this run has when the run has none. */
  ref(index: number): Id {
    return this.#run.length === 0 ? 0 : this.#run[index % this.#run.length]!;
  }
}

/** Nesting `depth` levels of arrays (`[[["x"]]]`) or objects (`{"a":{"a":"x"}}`) around `leaf`. */
export function nested(depth: number, kind: 'array' | 'object', leaf = '"x"'): RawJson {
  const text = kind === 'array' ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
  return new RawJson(text, `${kind} nested ${depth} deep`);
}

/**
 * One line of JSON text (no newline: strings are escaped by JSON.stringify). Ids come from
 * `ids`; fresh ids are handed out in the order they are written (an `IdRef` written before a
 * fresh id of its own line still sees only the earlier ones).
 */
export function render(value: WireValue, ids: IdAllocator): string {
  const write = (v: WireValue): string => {
    if (v instanceof RawJson) return v.text;
    if (v instanceof FreshId) return JSON.stringify(ids.fresh(v.shape, v.salt));
    if (v instanceof IdRef) return JSON.stringify(ids.ref(v.index));
    if (v instanceof Entries) return `{${v.entries.map(([k, item]) => `${JSON.stringify(k)}:${write(item)}`).join(',')}}`;
    if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
    if (v !== null && typeof v === 'object') {
      return `{${Object.entries(v)
        .map(([k, item]) => `${JSON.stringify(k)}:${write(item)}`)
        .join(',')}}`;
    }
    return scalar(v);
  };
  return write(value);
}

function scalar(value: null | boolean | number | string): string {
  // -0 and non-finite numbers: JSON has no such thing; write what a peer would (0, null).
  return JSON.stringify(value);
}

/** Nesting depth of a parsed JSON value (a scalar is 0), iteratively: values may be thousands deep. */
export function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (Array.isArray(v)) for (const item of v) stack.push([item, d + 1]);
    else if (v !== null && typeof v === 'object') for (const item of Object.values(v)) stack.push([item, d + 1]);
  }
  return max;
}

/** A short readable form of a line for reports: long runs of one character collapsed. */
export function abbreviate(text: string, max = 400): string {
  const collapsed = text.replace(/(.)\1{15,}/gs, (run, ch: string) => `${ch}…(×${run.length})`);
  return collapsed.length > max ? `${collapsed.slice(0, max)}…(${text.length} chars)` : collapsed;
}
