/**
 * Compile-time assertions for the type tests in this folder. These files are compiled by
 * the main build (`tsc -p .`) and never run: a wrong inferred type, or a `@ts-expect-error`
 * line that is no longer an error, fails the build.
 */

/** Exact type equality (not mere assignability in one direction). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * `expectType<Expected>()(value)` compiles only when `value`'s type is exactly `Expected`;
 * otherwise the call wants a second argument, whose type names both.
 */
export function expectType<Expected>() {
  return <Actual>(
    _value: Actual,
    ..._mismatch: Equal<Actual, Expected> extends true ? [] : [{ expected: Expected; actual: Actual }]
  ): void => {};
}
