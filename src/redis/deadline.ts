/**
 * A deadline on one Redis command. node-redis's own `timeout` only takes back a command not
 * yet written: one written to a Redis that stopped answering (frozen, or a network path that
 * drops packets) would wait forever, and a request waiting on it would hang.
 */
export async function bounded<T>(reply: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${timeoutMs} ms`)), timeoutMs);
  });
  reply.catch(() => undefined); // a failure after the deadline was already reported as one
  try {
    return await Promise.race([reply, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
