/**
 * Routes and the revisions table agree, both ways: every route the server or the client has is
 * a method some revision has, and every method of every revision has a route where it is
 * answered, or is listed here as deliberately not served, with why. A method added to the table
 * without a route (or a route left behind when a revision drops its method) fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SERVER_REQUEST_ROUTES } from '../../src/client/server-requests.js';
import { REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import { SESSION_NOTIFICATIONS } from '../../src/server/legacy/dispatch.js';
import { HANDSHAKE, INITIALIZING, SESSION } from '../../src/server/legacy/routes.js';
import { MODERN_NOTIFICATIONS } from '../../src/server/modern/dispatch.js';
import { MODERN_ROUTES } from '../../src/server/modern/routes.js';

type Direction = keyof Revision['methods'];

/** Methods answered outside a route table, each with where. */
const ANSWERED_ELSEWHERE: Readonly<Record<string, string>> = {
  'subscriptions/listen': 'opens a stream rather than answering once (server/modern/listen-admission.ts)',
};

/** Methods some revision has that are deliberately not served, each with why. */
const NOT_SERVED: Readonly<Partial<Record<Direction, Readonly<Record<string, string>>>>> = {
  clientNotifications: {
    'notifications/progress': 'the server sends no request that asks the client for progress',
  },
};

const union = (d: Direction, era?: Revision['era']) =>
  new Set(REVISIONS.filter((r) => era === undefined || r.era === era).flatMap((r) => [...r.methods[d]]));

/** Where each era answers each direction's methods. */
const SERVED: Readonly<Record<Direction, Readonly<Record<Revision['era'], ReadonlySet<string>>>>> = {
  clientRequests: {
    modern: new Set(MODERN_ROUTES.keys()),
    legacy: new Set([...HANDSHAKE.routes.keys(), ...INITIALIZING.routes.keys(), ...SESSION.routes.keys()]),
  },
  clientNotifications: { modern: new Set(MODERN_NOTIFICATIONS.keys()), legacy: new Set(SESSION_NOTIFICATIONS.keys()) },
  // The client answers server requests with one table in both eras (legacy requests, modern inputRequests).
  serverRequests: { modern: new Set(Object.keys(SERVER_REQUEST_ROUTES)), legacy: new Set(Object.keys(SERVER_REQUEST_ROUTES)) },
  // The client hands every server notification to its listeners (client/notifications.ts): none is dropped by method.
  serverNotifications: { modern: union('serverNotifications'), legacy: union('serverNotifications') },
};

const DIRECTIONS: readonly Direction[] = ['clientRequests', 'clientNotifications', 'serverRequests', 'serverNotifications'];

test('every method of every revision has a route, or is answered elsewhere, or is deliberately not served', () => {
  for (const r of REVISIONS) {
    for (const d of DIRECTIONS) {
      for (const method of r.methods[d]) {
        const served = SERVED[d][r.era].has(method) || method in ANSWERED_ELSEWHERE || method in (NOT_SERVED[d] ?? {});
        assert.ok(served, `${r.version} ${d} has ${method}, but nothing answers it`);
      }
      // The inputRequests a 2026-07-28 server may embed are answered by the client's table too.
      for (const method of r.inputRequests) assert.ok(method in SERVER_REQUEST_ROUTES, `${r.version} input request ${method}`);
    }
  }
});

test('every route is a method some revision has, in that route’s era and direction', () => {
  for (const d of DIRECTIONS) {
    for (const era of ['modern', 'legacy'] as const) {
      // The client's tables serve both eras (server requests, notifications): any revision's methods.
      const known = d.startsWith('server') ? union(d) : union(d, era);
      for (const method of SERVED[d][era]) {
        assert.ok(known.has(method), `a ${era} route for ${method} (${d}), which no ${era} revision has`);
      }
    }
  }
  for (const method of [...Object.keys(ANSWERED_ELSEWHERE), ...Object.values(NOT_SERVED).flatMap((m) => Object.keys(m ?? {}))]) {
    assert.ok(
      DIRECTIONS.some((d) => union(d).has(method)),
      `${method} is listed as answered elsewhere or not served, but no revision has it`,
    );
  }
});
