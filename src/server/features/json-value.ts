/**
 * Is what a handler returned JSON, as it will be sent? `JSON.stringify` coerces silently: a
 * `Date` becomes a string, `NaN` and `Infinity` become null, a function or `undefined` in an
 * array becomes null and a `Map` becomes `{}`; a cycle or a bigint throws in the transport,
 * after the handler is done. A handler's result is checked first instead, so the server
 * never sends a value other than the one the handler meant (non-JSON values fail rather than
 * being coerced).
 */

/** Deeper than this, a value is refused (a cycle reaches it too, without a set of seen objects). */
const MAX_DEPTH = 256;

/** Why `value` is not plain JSON data, naming where (`$.content[0].text`), or undefined when it is. */
export function jsonProblem(value: unknown): string | undefined {
  return problemAt(value, 0) === undefined ? undefined : describe(value);
}

/**
 * The walk that runs on every result: no allocation while the value is fine. Returns
 * undefined, or a marker that something below is wrong (`describe` then finds what).
 */
function problemAt(value: unknown, depth: number): true | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : true;
    case 'object': {
      if (value === null) return undefined;
      if (depth >= MAX_DEPTH) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (problemAt(value[i], depth + 1)) return true;
        return undefined;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return true;
      const record = value as Record<string, unknown>;
      for (const key in record) {
        const v = record[key];
        // An undefined property is left out by JSON.stringify, as an optional field is meant to be.
        if (v !== undefined && problemAt(v, depth + 1)) return true;
      }
      return undefined;
    }
    default:
      return true;
  }
}

/** The slow path, only for a value already known to be wrong: the first problem and its path. */
function describe(value: unknown, path = '$', depth = 0): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${String(value)} at ${path}`;
    case 'object': {
      if (value === null) return undefined;
      if (depth >= MAX_DEPTH) return `a value nested deeper than ${MAX_DEPTH} levels (or a cycle) at ${path}`;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const found = value[i] === undefined ? `undefined at ${path}[${i}]` : describe(value[i], `${path}[${i}]`, depth + 1);
          if (found) return found;
        }
        return undefined;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return `${kindOf(value)} at ${path}`;
      for (const [key, v] of Object.entries(value)) {
        const found = v === undefined ? undefined : describe(v, `${path}.${key}`, depth + 1);
        if (found) return found;
      }
      return undefined;
    }
    case 'undefined':
      return `undefined at ${path}`;
    default:
      return `a ${typeof value} at ${path}`;
  }
}

function kindOf(value: object): string {
  const name: unknown = value.constructor?.name;
  return typeof name === 'string' && name !== '' ? `a ${name}` : 'an object that is not plain data';
}
