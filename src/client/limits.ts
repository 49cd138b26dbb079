/**
 * The client's bounds on what a server can make it hold or do, safe by default.
 * Each has its default here, an option in `ConnectOptions` (options.ts) and a clear error
 * when it is reached; docs/client.md §Options lists them.
 */

/** The largest message taken from a server: a JSON reply body, one SSE event, one stdio line (16 MiB, stdio's own line bound). */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Most `input_required` rounds of one request (mrtr.mdx). */
export const DEFAULT_MAX_INPUT_ROUNDS = 10;

/** Most `inputRequests` in one `input_required` round. */
export const DEFAULT_MAX_INPUT_REQUESTS = 16;

/** Most legacy server-to-client requests served at once. */
export const DEFAULT_MAX_SERVER_REQUESTS = 16;

/** Most notifications a listen stream holds for a reader that has not taken them yet. */
export const DEFAULT_MAX_QUEUED_NOTIFICATIONS = 1000;

/** The longest a request may wait however often progress restarts its timeout (lifecycle.mdx §Timeouts): one hour. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 60 * 60_000;

/** `n` bytes for a message: "16 MiB", "1.5 KiB", "100 bytes". */
export function bytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (n >= size) return `${Number((n / size).toFixed(1))} ${unit}`;
  }
  return `${n} bytes`;
}

/** The text of every "too large" error: what, the bound, and the option that sets it. */
export function tooLarge(what: string, max: number): string {
  return `${what} is larger than ${bytes(max)} (${max} bytes), the most this client takes in one message. If the server's messages are that large, raise maxMessageBytes in the connect options.`;
}
