/**
 * Node's built-in modules for code that must stay runtime-neutral (no static `node:` import):
 * reached through `process.getBuiltinModule` (Node 20.16+, and runtimes that mimic it), which
 * loads nothing until asked. Where it is missing these answer undefined, and the caller falls
 * back (Web Crypto, `import()`) or says what to do instead. Internal: not exported.
 */
export function builtinModule<T>(id: string): T | undefined {
  const node = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
  return typeof node?.getBuiltinModule === 'function' ? (node.getBuiltinModule(id) as T) : undefined;
}

/** A synchronous `require` resolving from `from` (the caller's `import.meta.url`), where the runtime has one. */
export function requireFrom(from: string): ((id: string) => unknown) | undefined {
  return builtinModule<{ createRequire(from: string): (id: string) => unknown }>('node:module')?.createRequire(from);
}
