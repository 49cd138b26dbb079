/**
 * The OAuth scopes a request needs because of what it targets: a tool's, prompt's or
 * resource's `scopes` (docs/authorization.md §Scopes per tool). An authenticating transport
 * asks before answering (`ServerCore.requiredScopes`), so a token without them gets HTTP 403
 * `insufficient_scope` naming them (2026-07-28 authorization §Scope Challenge Handling).
 */
import type { Registry } from './registry.js';

function nameParam(params: unknown, key: 'name' | 'uri'): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const v = (params as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

const some = (list: readonly string[] | undefined): readonly string[] | undefined =>
  list !== undefined && list.length > 0 ? list : undefined;

export function scopesOf(registry: Registry, method: string, params: unknown): readonly string[] | undefined {
  switch (method) {
    case 'tools/call': {
      const name = nameParam(params, 'name');
      return name === undefined ? undefined : some(registry.tools.get(name)?.config.scopes);
    }
    case 'prompts/get': {
      const name = nameParam(params, 'name');
      return name === undefined ? undefined : some(registry.prompts.get(name)?.config.scopes);
    }
    case 'resources/read':
    case 'resources/subscribe': {
      const uri = nameParam(params, 'uri');
      if (uri === undefined) return undefined;
      const fixed = registry.resources.get(uri);
      if (fixed !== undefined) return some(fixed.config.scopes);
      // The first template that matches is the one that reads it (features/operations.ts).
      for (const t of registry.templates.values()) if (t.match(uri) !== undefined) return some(t.config.scopes);
      return undefined;
    }
    default:
      return undefined;
  }
}
