/**
 * Elicitation without a person at the terminal: `--answers FILE` (answers written in advance)
 * and `--no-input` (every request declined). The interactive prompt is in prompt.ts.
 */
import { readFileSync } from 'node:fs';
import type { ElicitParams, ElicitResult } from '../protocol/index.js';
import { UsageError } from './args.js';

export type Elicitor = (params: ElicitParams) => Promise<ElicitResult>;
type Content = NonNullable<ElicitResult['content']>;

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

/**
 * The answers of a file: a JSON object of field values (accepted for every request, each taking
 * the fields its schema asks for), or a list with one answer per request in order. An answer
 * is an object of field values, `{ "action": …, "content": … }`, or `"accept"`, `"decline"` or
 * `"cancel"`. When a list runs out, further requests are cancelled.
 */
export function answersFromFile(file: string, note: (text: string) => void): Elicitor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--answers ${file}: ${e instanceof Error ? e.message : String(e)}`, 'call');
  }
  if (Array.isArray(parsed)) {
    for (const [i, entry] of parsed.entries()) check(file, entry, i);
    const queue = [...parsed];
    return async (params) => {
      if (queue.length === 0) {
        note(`janus-mcp: --answers ${file} has no answer left for "${params.message}": cancelled`);
        return { action: 'cancel' };
      }
      return toResult(queue.shift(), params);
    };
  }
  check(file, parsed);
  return async (params) => toResult(parsed, params);
}

/** Every request declined, with a note saying why and what to do instead. */
export function declineAll(reason: string, note: (text: string) => void): Elicitor {
  return async (params) => {
    note(`janus-mcp: the server asks "${params.message}": declined (${reason})`);
    return { action: 'decline' };
  };
}

function check(file: string, entry: unknown, index?: number): void {
  const where = index === undefined ? `--answers ${file}` : `--answers ${file}, answer ${index + 1}`;
  if (typeof entry === 'string' ? ACTIONS.has(entry) : typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
    const action = (entry as { action?: unknown }).action;
    if (typeof entry === 'string' || action === undefined || ACTIONS.has(action as string)) return;
  }
  throw new UsageError(
    `${where}: an answer is an object of field values, {"action", "content"}, or "accept", "decline" or "cancel"`,
    'call',
  );
}

function toResult(entry: unknown, params: ElicitParams): ElicitResult {
  if (typeof entry === 'string') return { action: entry as ElicitResult['action'] };
  const answer = entry as Record<string, unknown>;
  if ('action' in answer) {
    const result: ElicitResult = { action: answer.action as ElicitResult['action'] };
    if (answer.action === 'accept' && answer.content !== undefined) result.content = answer.content as Content;
    return result;
  }
  // Field values: the ones this request asks for (a URL request asks for none).
  if (params.mode === 'url') return { action: 'accept' };
  const asked = Object.keys((params.requestedSchema.properties ?? {}) as Record<string, unknown>);
  const content = Object.fromEntries(Object.entries(answer).filter(([k]) => asked.length === 0 || asked.includes(k)));
  return { action: 'accept', content: content as Content };
}
