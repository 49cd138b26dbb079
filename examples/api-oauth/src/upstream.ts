/**
 * The upstream API: an issue tracker over HTTP. This server calls it with its own key; the
 * MCP client's access token is never sent on (it was issued for this server only: token
 * passthrough is forbidden). Who the user is travels as `X-On-Behalf-Of`, the verified subject.
 *
 * What it expects of the API:
 *   GET  /issues?state=open|closed|all   → 200 [Issue, …]
 *   POST /issues {title, body, reporter} → 201 Issue
 *   POST /issues/{id}/close {reason}     → 200 Issue, or 404
 * with `Authorization: Bearer <UPSTREAM_API_KEY>` on every request.
 */
import { ToolError } from 'janus-mcp/errors';
import { z } from 'zod';

export const Issue = z.object({
  id: z.number().int(),
  title: z.string(),
  body: z.string(),
  state: z.enum(['open', 'closed']),
  reporter: z.string(),
});
export type Issue = z.infer<typeof Issue>;

const TIMEOUT_MS = 10_000;

export class IssueTracker {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
  ) {}

  async list(state: 'open' | 'closed' | 'all', as: string, signal: AbortSignal): Promise<Issue[]> {
    return z.array(Issue).parse(await this.call('GET', `/issues?state=${state}`, undefined, as, signal));
  }

  async create(title: string, body: string, as: string, signal: AbortSignal): Promise<Issue> {
    return Issue.parse(await this.call('POST', '/issues', { title, body, reporter: as }, as, signal));
  }

  async close(id: number, reason: string, as: string, signal: AbortSignal): Promise<Issue> {
    return Issue.parse(await this.call('POST', `/issues/${id}/close`, { reason }, as, signal));
  }

  /**
   * One request. What the model can act on (a 4xx: no such issue, a bad title) comes back as a
   * `ToolError` with the API's own message; anything else (the API down, a 5xx, a bad key) is
   * an `Error`, which the client sees masked and the server's `onError` sees in full.
   */
  private async call(method: string, path: string, body: unknown, as: string, signal: AbortSignal): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          'x-on-behalf-of': as,
          ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
    } catch (e) {
      throw new Error(`the issue tracker at ${this.baseUrl} could not be reached (${method} ${path})`, { cause: e });
    }
    const text = await response.text();
    if (response.status === 401 || response.status === 403)
      throw new Error(`the issue tracker refused this server's key (HTTP ${response.status}): check UPSTREAM_API_KEY`);
    if (response.status >= 400 && response.status < 500) throw new ToolError(`The issue tracker says: ${messageOf(text, response.status)}`);
    if (!response.ok) throw new Error(`the issue tracker answered ${method} ${path} with HTTP ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  }
}

function messageOf(text: string, status: number): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed && typeof parsed.error === 'string') return parsed.error;
  } catch {
    // not JSON: the status says it
  }
  return `HTTP ${status}`;
}
