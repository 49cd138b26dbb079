/**
 * fast-check generators of what a hostile or broken MCP client sends, in named families, so
 * that a family that still fails on a known bug can be set aside (known-failures.ts) while the
 * others keep running. Every generator is era- and context-free: model.ts says what the server
 * must answer to each message on a given channel. The values are in values.ts, the messages in
 * messages.ts, the families in wire-families.ts and hostile-families.ts.
 */
import type fc from 'fast-check';
import { hostileFamilies } from './hostile-families.js';
import type { FamilyOptions, Frame } from './messages.js';
import { wireFamilies } from './wire-families.js';

export type { FamilyOptions, Frame } from './messages.js';

/** Every family, by name (known-failures.ts weighs them). */
export function families(options: FamilyOptions): Record<string, fc.Arbitrary<Frame>> {
  return { ...wireFamilies(options), ...hostileFamilies() };
}
