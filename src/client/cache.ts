/**
 * An optional cache for 2026-07-28 cache hints (server/utilities/caching.mdx): fresh while
 * now < received + ttlMs; keyed by method and the params that affect the result; never
 * for MRTR retries; dropped at once by a relevant list-changed or updated notification.
 */
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { canonicalJson } from '../protocol/canonical-json.js';
import type { Result } from '../protocol/types.js';

type Params = Record<string, unknown>;

const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

const INVALIDATES: Record<string, string[]> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

export class ResponseCache {
  private readonly entries = new Map<string, { result: Result; expires: number; method: string; uri?: string }>();

  private key(method: string, params: Params): string | undefined {
    if (!CACHEABLE.has(method) || params.inputResponses !== undefined || params.requestState !== undefined) return undefined;
    const { _meta: _m, ...rest } = params;
    return `${method} ${canonicalJson(rest)}`;
  }

  get(method: string, params: Params): Result | undefined {
    const key = this.key(method, params);
    const hit = key === undefined ? undefined : this.entries.get(key);
    if (!hit) return undefined;
    if (Date.now() >= hit.expires) {
      this.entries.delete(key!);
      return undefined;
    }
    return hit.result;
  }

  put(method: string, params: Params, result: Result): void {
    const key = this.key(method, params);
    const ttl = typeof result.ttlMs === 'number' && result.ttlMs > 0 ? result.ttlMs : 0;
    if (key === undefined || ttl === 0 || result.resultType === 'input_required') return;
    this.entries.set(key, { result, expires: Date.now() + ttl, method, uri: typeof params.uri === 'string' ? params.uri : undefined });
  }

  invalidate(n: JsonRpcNotification): void {
    const methods = INVALIDATES[n.method];
    const uri = n.method === 'notifications/resources/updated' ? n.params?.uri : undefined;
    if (!methods && uri === undefined) return;
    for (const [k, e] of this.entries) {
      if (methods?.includes(e.method) || (uri !== undefined && e.method === 'resources/read' && e.uri === uri)) this.entries.delete(k);
    }
  }
}
