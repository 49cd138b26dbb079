/**
 * One Redis command over a fresh loopback connection, for tests that start and probe Redis
 * processes themselves: RESP2 over node:net, so no client library's retries, routing or
 * reconnection stand between a test and what one node answers.
 */
import { createConnection } from 'node:net';

/** A decoded RESP2 reply; an error reply rejects instead. */
export type RespReply = string | number | null | RespReply[];

/** A Redis error reply (`-ERR …`, `-MOVED …`), as distinct from a connection that failed. */
export class RespError extends Error {
  override readonly name = 'RespError';
}

const encode = (args: readonly (string | number)[]): string =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${String(a)}\r\n`).join('')}`;

/** Decodes one reply at `at` in `buf`; null while more bytes are needed. */
function decode(buf: Buffer, at: number): { value: RespReply | RespError; next: number } | null {
  const eol = buf.indexOf('\r\n', at, 'latin1');
  if (eol < 0) return null;
  const line = buf.toString('utf8', at + 1, eol);
  const next = eol + 2;
  switch (String.fromCharCode(buf[at]!)) {
    case '+':
      return { value: line, next };
    case '-':
      return { value: new RespError(line), next };
    case ':':
      return { value: Number(line), next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buf.length < next + length + 2) return null;
      return { value: buf.toString('utf8', next, next + length), next: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items: RespReply[] = [];
      let cursor = next;
      for (let i = 0; i < count; i++) {
        const item = decode(buf, cursor);
        if (!item) return null;
        // An error inside an array (EXEC) is kept as its message.
        items.push(item.value instanceof RespError ? item.value.message : item.value);
        cursor = item.next;
      }
      return { value: items, next: cursor };
    }
    default:
      return { value: new RespError(`not a RESP2 reply: ${JSON.stringify(buf.toString('latin1', at, eol))}`), next };
  }
}

/**
 * Sends one command to `address` ('127.0.0.1:port') and resolves with its decoded reply.
 * Rejects with a `RespError` on an error reply, and with a plain Error naming the address when
 * the connection fails or no whole reply comes within `timeoutMs`.
 */
export function redisReply(address: string, args: readonly (string | number)[], timeoutMs = 3000): Promise<RespReply> {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon);
  const port = Number(address.slice(colon + 1));
  const what = `${String(args[0])} to ${address}`;
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    let buf = Buffer.alloc(0);
    let settled = false;
    const settle = (outcome: RespReply | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(() => settle(new Error(`${what}: no whole reply within ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => socket.write(encode(args)));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      const reply = decode(buf, 0);
      if (reply) settle(reply.value);
    });
    socket.on('error', (e) => settle(new Error(`${what}: ${e.message}`)));
    socket.on('close', () => settle(new Error(`${what}: connection closed before a whole reply`)));
  });
}

/** Flattens a reply to text: array items one per line, nil as ''. */
function text(reply: RespReply): string {
  if (reply === null) return '';
  if (Array.isArray(reply)) return reply.map(text).join('\n');
  return String(reply);
}

/** `redisReply` as text (an array's items one per line), e.g. `await redisCommand(a, 'CLUSTER', 'INFO')`. */
export async function redisCommand(address: string, ...args: (string | number)[]): Promise<string> {
  return text(await redisReply(address, args));
}

/** Whether `address` answers PING now (false on any failure, never throws). */
export async function redisPings(address: string, timeoutMs = 1000): Promise<boolean> {
  return redisReply(address, ['PING'], timeoutMs).then(
    (reply) => reply === 'PONG',
    () => false,
  );
}
