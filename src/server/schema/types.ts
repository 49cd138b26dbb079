/** The schema types a definition accepts, and the types inferred from them. */
import type { StandardSchemaV1 } from '@standard-schema/spec';

/**
 * A [Standard Schema](https://standardschema.dev): Zod 4 (or Zod 3.25's `zod/v4`), ArkType,
 * Valibot wrapped with `toStandardJsonSchema()`, … It must also be able to produce JSON
 * Schema (Standard JSON Schema, or Zod 4.0/4.1's own converter); that is checked when the
 * schema is registered.
 */
export type StandardSchema<Input = unknown, Output = Input> = StandardSchemaV1<Input, Output>;

/** A raw JSON Schema (2020-12) object; its root must be `{ type: 'object', … }`. */
export type JsonSchemaObject = Record<string, unknown>;

/** What `input`, `output` and a prompt's `arguments` accept. */
export type SchemaInput = StandardSchema | JsonSchemaObject;

/** The value a schema hands to the handler (its output type); raw JSON Schema gives an untyped object. */
export type Parsed<S> = S extends StandardSchema ? StandardSchemaV1.InferOutput<S> : Record<string, unknown>;

/** The value a schema accepts (its input type): what a handler must produce for an output schema. */
export type Accepted<S> = S extends StandardSchema ? StandardSchemaV1.InferInput<S> : Record<string, unknown>;
