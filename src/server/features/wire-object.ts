/** The wire objects definitions build once, at registration. */
import { JanusError } from '../../protocol/errors.js';
import { jsonProblem } from './json-value.js';

/**
 * `value` without its `undefined` members, in place: a field a definition leaves out is
 * absent on the wire, not `undefined`, and the others keep their declared order.
 */
export function withoutUndefined<T extends object>(value: T): T {
  for (const key in value) if (value[key] === undefined) delete value[key];
  return value;
}

/**
 * A definition's wire object (its `_meta`, icons, annotations, schemas come from the
 * registering code): without its `undefined` members, and plain JSON, checked once here so
 * that no list result can fail to be written later.
 */
export function wireDefinition<T extends object>(what: string, value: T): T {
  const wire = withoutUndefined(value);
  const problem = jsonProblem(wire);
  if (problem) throw new JanusError('REGISTRATION', `${what} cannot be sent: ${problem}`);
  return wire;
}
