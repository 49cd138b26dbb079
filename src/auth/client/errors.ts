/** The OAuth client's refusals and failures: JanusError 'AUTH', with what happened and what to check. */
import { JanusError } from '../../errors/index.js';

export function authError(message: string, cause?: unknown): JanusError {
  return new JanusError('AUTH', `authorization failed: ${message}`, cause === undefined ? undefined : { cause });
}
