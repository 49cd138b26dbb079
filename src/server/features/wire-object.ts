/** The wire objects definitions build once, at registration. */

/**
 * `value` without its `undefined` members, in place: a field a definition leaves out is
 * absent on the wire, not `undefined`, and the others keep their declared order.
 */
export function withoutUndefined<T extends object>(value: T): T {
  for (const key in value) if (value[key] === undefined) delete value[key];
  return value;
}
