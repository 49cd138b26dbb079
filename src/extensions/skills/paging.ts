/** Offset cursors for the extension's lists (`skills/list`, `resources/directory/read`), as the base protocol's lists page. */
import { ErrorCode, McpError } from '../../protocol/errors.js';

/** The page of `items` that `cursor` names, and the cursor of the next page when there is one. */
export function pageOf<T>(items: readonly T[], cursor: unknown, pageSize: number | undefined): { page: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    start = decodeCursor(cursor);
    if (start > items.length) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
  }
  const end = pageSize === undefined ? items.length : Math.min(items.length, start + pageSize);
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: btoa(JSON.stringify({ o: end })) } : { page };
}

function decodeCursor(cursor: unknown): number {
  try {
    const decoded: unknown = JSON.parse(atob(String(cursor)));
    const o = typeof decoded === 'object' && decoded !== null ? (decoded as { o?: unknown }).o : undefined;
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
}
