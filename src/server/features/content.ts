/**
 * Content blocks as a handler returns them (tool results, prompt messages): a block of a known
 * type must carry the fields its schema requires (schema `ContentBlock`: text, image, audio,
 * resource, resource_link), so that the server never sends a block the client's validator
 * refuses, such as a text block without `text`.
 */
import { isObject } from '../guards.js';

const KNOWN: ReadonlySet<string> = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

/** An object whose `type` names one of the content block types. */
export function isContentBlockLike(v: unknown): v is { type: string } & Record<string, unknown> {
  return isObject(v) && typeof v.type === 'string' && KNOWN.has(v.type);
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** What is missing from a content block (`at` names where it is), or undefined when it has what its type requires. */
export function contentProblem(block: unknown, at: string): string | undefined {
  if (!isContentBlockLike(block)) return `${at} is not a content block (type text, image, audio, resource or resource_link)`;
  switch (block.type) {
    case 'text':
      return isString(block.text) ? undefined : `${at} is a text block without a string "text"`;
    case 'image':
    case 'audio':
      return isString(block.data) && isString(block.mimeType)
        ? undefined
        : `${at} is an ${block.type} block without string "data" and "mimeType"`;
    case 'resource': {
      const r = block.resource;
      const ok = isObject(r) && isString(r.uri) && (isString(r.text) || isString(r.blob));
      return ok ? undefined : `${at} is a resource block without a "resource" of "uri" and "text" or "blob"`;
    }
    default:
      return isString(block.uri) && isString(block.name) ? undefined : `${at} is a resource_link block without string "uri" and "name"`;
  }
}
