/**
 * What `await` would wait for: a promise, or another library's thenable (a user's handler,
 * middleware or extension may return one). Shared by the server's dispatchers and the
 * middleware chain both sides run. Not exported from the package: an internal helper.
 */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && 'then' in v && typeof v.then === 'function';
}
