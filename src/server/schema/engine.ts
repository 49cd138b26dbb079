/**
 * What a JSON Schema engine gives the schema layer: a schema turned once into a check that
 * answers undefined for a valid value, or the message that says what is wrong with it. Both
 * engines (ajv-engine.ts, interpreted-engine.ts) word their messages alike: Ajv's English, each
 * error as `<instance path or (root)> <what it must be>`, at most five, joined with `; `.
 */
export type Check = (value: unknown) => string | undefined;

export interface JsonSchemaEngine {
  /** 'ajv' (compiled to code) or 'interpreted' (for runtimes that refuse code generation). */
  readonly name: 'ajv' | 'interpreted';
  /** Throws when the schema itself is not valid JSON Schema. */
  compile(schema: Record<string, unknown>): Check;
}

/** Up to five messages, each said once, as one line. */
export function joinMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 0 ? 'invalid' : unique.slice(0, 5).join('; ');
}
