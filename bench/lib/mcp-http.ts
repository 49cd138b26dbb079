/** MCP over the raw HTTP client: opening a 2025-11-25 session, and checked single calls. */
import { type HttpConnection, openConnection } from './http.js';
import {
  checkEcho,
  echoParams,
  initializeParams,
  LEGACY,
  modernHeaders,
  notification,
  postHead,
  responseTo,
  rpc,
  sessionHeaders,
  withBody,
  WrongAnswer,
} from './mcp.js';

export interface Endpoint {
  port: number;
  path: string;
  /** The bearer token the server wants on every request (janus-auth), else none. */
  token?: string | undefined;
}

/** initialize (2025-11-25) + notifications/initialized on `conn`; returns the session id. */
export async function openSession(conn: HttpConnection, ep: Endpoint, what: string): Promise<string> {
  conn.captureHeaders = true;
  try {
    const res = await conn.request(withBody(postHead(ep.port, ep.path, {}, ep.token), rpc(0, 'initialize', initializeParams())));
    if (res.status !== 200) throw new WrongAnswer(`${what}: initialize answered HTTP ${res.status}: ${res.body.toString().slice(0, 300)}`);
    const init = responseTo(res, 0, `${what}: initialize`);
    if (init.protocolVersion !== LEGACY) throw new WrongAnswer(`${what}: initialize negotiated ${init.protocolVersion}, not ${LEGACY}`);
    const sid = res.headers['mcp-session-id'];
    if (!sid) throw new WrongAnswer(`${what}: initialize answer has no Mcp-Session-Id`);
    const ack = await conn.request(
      withBody(postHead(ep.port, ep.path, sessionHeaders(sid), ep.token), notification('notifications/initialized')),
    );
    if (ack.status !== 202 && ack.status !== 200) throw new WrongAnswer(`${what}: notifications/initialized answered HTTP ${ack.status}`);
    return sid;
  } finally {
    conn.captureHeaders = false;
  }
}

/** One echo call, fully checked: over a new connection, in a new session when `era` is legacy. */
export async function checkEchoHttp(ep: Endpoint, era: 'modern' | 'legacy', what: string, sessionId?: string): Promise<string | undefined> {
  const conn = await openConnection(ep.port);
  try {
    let head: string;
    let sid = sessionId;
    if (era === 'modern') {
      head = postHead(ep.port, ep.path, modernHeaders('tools/call', 'echo'), ep.token);
    } else {
      sid ??= await openSession(conn, ep, what);
      head = postHead(ep.port, ep.path, sessionHeaders(sid), ep.token);
    }
    const res = await conn.request(withBody(head, rpc(7, 'tools/call', echoParams(era))));
    if (res.status !== 200) throw new WrongAnswer(`${what}: tools/call answered HTTP ${res.status}: ${res.body.toString().slice(0, 300)}`);
    checkEcho(responseTo(res, 7, what), what, era);
    return sid;
  } finally {
    conn.close();
  }
}
