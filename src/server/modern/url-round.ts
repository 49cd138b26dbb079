/**
 * -32042 does not exist in 2026-07-28 (basic/index.mdx §Error Codes): a handler that throws
 * `UrlElicitationRequiredError` gets an input_required round of URL elicitations instead;
 * the retry runs it again, and it decides from its own records whether the user finished.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { InputRequest, Result } from '../../protocol/types.js';
import { isObject } from '../guards.js';
import type { Params } from '../routes.js';
import type { Envelope } from './envelope.js';
import { withServerInfo, type ModernDeps } from './routes.js';

/** Whether a failure is a handler's `UrlElicitationRequiredError` (its -32042). */
export function needsUrlElicitation(e: unknown): e is McpError {
  return e instanceof McpError && e.code === ErrorCode.UrlElicitationRequired;
}

/** The input_required round that asks for the error's URL elicitations; -32021 when the client cannot take them. */
export function urlRound(server: ModernDeps, e: McpError, env: Envelope): Result {
  const data = e.data;
  const list: unknown[] = isObject(data) && Array.isArray(data.elicitations) ? data.elicitations : [];
  const url = env.capabilities.elicitation;
  if (!isObject(url) || !('url' in url)) {
    throw new McpError(ErrorCode.MissingRequiredClientCapability, 'This request needs URL elicitation', {
      requiredCapabilities: { elicitation: { url: {} } },
    });
  }
  const inputRequests: Record<string, InputRequest> = {};
  list.forEach((item, i) => {
    const el: Params = isObject(item) ? item : {};
    inputRequests[`url-${String(el.elicitationId ?? i)}`] = {
      method: 'elicitation/create',
      params: { mode: 'url', message: el.message, url: el.url },
    };
  });
  return withServerInfo(server, { resultType: 'input_required', inputRequests });
}
