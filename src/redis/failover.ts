/**
 * Waiting out a failover: a command that finds no primary is tried again, with a short capped
 * backoff, until `waitMs` has passed since it was first sent; then its last error stands. What
 * counts as "no primary": the connection is down or going down (the node died, the client is
 * reconnecting, no answer within the command's timeout), or Redis says so itself (the cluster is
 * re-electing: CLUSTERDOWN, TRYAGAIN; a node that was demoted: READONLY; a primary still
 * loading its data: LOADING; a replica whose primary is down: MASTERDOWN). Any other error reply
 * (a script's own error, a wrong type) is an answer, and is not tried again.
 */
import { ErrorReply } from 'redis';

const UNAVAILABLE_REPLIES = /^(CLUSTERDOWN|TRYAGAIN|READONLY|LOADING|MASTERDOWN|NOREPLICAS|MOVED|ASK)\b/;

/** First wait between two tries, doubled each time up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 25;
const MAX_BACKOFF_MS = 250;

/** Whether `error` says that no primary could take the command (rather than that the command failed). */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof ErrorReply) return UNAVAILABLE_REPLIES.test(error.message);
  return error instanceof Error;
}

/**
 * Runs `attempt`, and again while it fails for want of a primary, until `waitMs` after the
 * first try (`waitMs` 0: once). Each try is bounded by the caller's own command timeout, so the
 * whole takes at most `waitMs` plus one command timeout.
 */
export async function withFailover<T>(attempt: () => Promise<T>, waitMs: number): Promise<T> {
  if (waitMs <= 0) return attempt();
  const deadline = Date.now() + waitMs;
  let backoff = FIRST_BACKOFF_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      const left = deadline - Date.now();
      if (left <= 0 || !isUnavailable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(backoff, left)));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
