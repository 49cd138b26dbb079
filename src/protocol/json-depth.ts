/**
 * How deeply a decoded JSON value nests. JSON-RPC 2.0 and MCP set no limit, but everything
 * that walks a message afterwards (validators, canonical JSON, `JSON.stringify` when an error
 * echoes a value) recurses, and a value nested thousands of levels deep overflows the stack
 * there. Receivers refuse such messages up front, at a documented depth.
 */

/** The default limit: how many levels below the message itself a value may sit. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * Whether some value inside `value` sits more than `max` levels below it: in `{"a":{"b":1}}`
 * the object under `a` is 1 level down and the `1` is 2. The recursion stops at `max` levels,
 * so a hostile value cannot overflow the stack here, and nothing is allocated: this runs on
 * every inbound message.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    if (value.length > 0 && max <= 0) return true;
    for (let i = 0; i < value.length; i++) if (nestedDeeperThan(value[i], max - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (max <= 0 || nestedDeeperThan(record[key], max - 1)) return true;
  }
  return false;
}
