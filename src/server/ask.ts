/**
 * What a handler may ask the client for (`ctx.elicit`, `ctx.sample`, `ctx.roots`): the three
 * request kinds, their params and answers, the check that an answer has its method's shape,
 * and the client capability each needs. Each era has its own `Asker`: a legacy session sends a
 * real server-to-client request; a modern request collects the asks into an `input_required`
 * result (2026-07-28 basic/patterns/mrtr.mdx).
 */
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Meta,
  Root,
} from '../protocol/types.js';
import type { AskOptions } from './context.js';
import { isObject } from './guards.js';

/** `roots/list` params (client/roots.mdx): nothing but an optional `_meta`. */
export interface RootsParams {
  _meta?: Meta;
}

/** `ListRootsResult` (client/roots.mdx). */
export interface RootsAnswer {
  roots: Root[];
  _meta?: Meta;
}

/** The params of each kind of ask. */
export interface AskParams {
  'elicitation/create': ElicitParams;
  'sampling/createMessage': CreateMessageParams;
  'roots/list': RootsParams;
}

/** The answer to each kind of ask. */
export interface AskAnswers {
  'elicitation/create': ElicitResult;
  'sampling/createMessage': CreateMessageResult;
  'roots/list': RootsAnswer;
}

export type AskMethod = keyof AskParams;

/** How a request reaches the client for input; one implementation per era. */
export interface Asker {
  /**
   * Sends one request to the client (`elicitation/create`, `sampling/createMessage` or
   * `roots/list`) and resolves with its answer.
   */
  ask<M extends AskMethod>(method: M, params: AskParams[M], options: AskOptions | undefined): Promise<AskAnswers[M]>;
}

/** Does a client's answer have the shape its method's result needs? */
export function isAnswer<M extends AskMethod>(method: M, value: unknown): value is AskAnswers[M] {
  if (!isObject(value)) return false;
  switch (method) {
    case 'elicitation/create':
      return (
        (value.action === 'accept' || value.action === 'decline' || value.action === 'cancel') &&
        (value.content === undefined || isObject(value.content))
      );
    case 'sampling/createMessage':
      return typeof value.role === 'string' && typeof value.content === 'object' && value.content !== null;
    case 'roots/list':
      return Array.isArray(value.roots);
  }
  return false;
}

const isUrlElicitation = (params: object): boolean => 'mode' in params && params.mode === 'url';
const samplesWithTools = (params: object): boolean => 'tools' in params && params.tools !== undefined;

/**
 * Which client capability an ask needs (client/elicitation.mdx §Capabilities: an empty
 * `elicitation` object means form only), as the `requiredCapabilities` shape of -32021.
 */
export function requiredCapability(method: AskMethod, params: object): ClientCapabilities {
  switch (method) {
    case 'elicitation/create':
      return isUrlElicitation(params) ? { elicitation: { url: {} } } : { elicitation: { form: {} } };
    case 'sampling/createMessage':
      return samplesWithTools(params) ? { sampling: { tools: {} } } : { sampling: {} };
    case 'roots/list':
      return { roots: {} };
  }
}

/** Whether the client declared what the ask needs. */
export function clientCan(caps: ClientCapabilities, method: AskMethod, params: object): boolean {
  switch (method) {
    case 'elicitation/create': {
      const e = caps.elicitation;
      if (typeof e !== 'object' || e === null) return false;
      if (isUrlElicitation(params)) return 'url' in e;
      return 'form' in e || !('url' in e);
    }
    case 'sampling/createMessage': {
      const s = caps.sampling;
      if (typeof s !== 'object' || s === null) return false;
      return !samplesWithTools(params) || 'tools' in s;
    }
    case 'roots/list':
      return typeof caps.roots === 'object' && caps.roots !== null;
  }
}
