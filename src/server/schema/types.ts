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

/**
 * An object of Standard Schemas, one per property, as the official SDK v1 takes them
 * (`{ name: z.string(), limit: z.number().optional() }`): the object of those properties, each
 * validated by its schema, required unless its schema accepts `undefined`. Unknown properties
 * are dropped, as `z.object` does.
 */
export type RawShape = { readonly [property: string]: StandardSchema };

/** What `input`, `output` and a prompt's `arguments` accept. */
export type SchemaInput = StandardSchema | RawShape | JsonSchemaObject;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The object a raw shape describes, from each property's output (`Out`) or input type: optional where `undefined` is allowed. */
type ShapeObject<S extends RawShape, Out extends boolean> = Simplify<
  {
    -readonly [K in keyof S as undefined extends Of<S[K], Out> ? never : K]: Of<S[K], Out>;
  } & {
    -readonly [K in keyof S as undefined extends Of<S[K], Out> ? K : never]?: Of<S[K], Out>;
  }
>;
type Of<S extends StandardSchema, Out extends boolean> = Out extends true
  ? StandardSchemaV1.InferOutput<S>
  : StandardSchemaV1.InferInput<S>;

/** The value a schema hands to the handler (its output type); raw JSON Schema gives an untyped object. */
export type Parsed<S> = S extends StandardSchema
  ? StandardSchemaV1.InferOutput<S>
  : S extends RawShape
    ? ShapeObject<S, true>
    : Record<string, unknown>;

/** The value a schema accepts (its input type): what a handler must produce for an output schema. */
export type Accepted<S> = S extends StandardSchema
  ? StandardSchemaV1.InferInput<S>
  : S extends RawShape
    ? ShapeObject<S, false>
    : Record<string, unknown>;
