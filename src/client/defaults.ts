/**
 * Elicitation defaults (SEP-1034, 2025-11-25 client/elicitation.mdx): when the user accepts
 * without answering a field whose schema has a `default`, the client sends the default.
 */
import type { ElicitResult } from '../protocol/types.js';

export function applyElicitationDefaults(schema: unknown, result: ElicitResult): ElicitResult {
  if (result.action !== 'accept' || !schema || typeof schema !== 'object') return result;
  const props = (schema as { properties?: Record<string, { default?: unknown }> }).properties;
  if (!props || typeof props !== 'object') return result;
  let content = result.content;
  for (const [name, prop] of Object.entries(props)) {
    if (prop && typeof prop === 'object' && prop.default !== undefined && (content === undefined || content[name] === undefined)) {
      content = { ...content, [name]: prop.default as string | number | boolean | string[] };
    }
  }
  return content === result.content ? result : { ...result, content };
}
