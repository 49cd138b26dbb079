/**
 * SSE events of legacy Streamable HTTP sessions on Redis (2025-11-25 transports §Resumability
 * and Redelivery), so that GET + `Last-Event-ID` resumes a stream on any instance behind the
 * load balancer, whichever instances wrote it.
 *
 * One Redis hash per SSE stream, `<prefix>sse:<streamId>`: field `s` the last sequence number,
 * `h` the oldest one still kept, `b` the bytes kept, `e` the stream's epoch (a random token
 * chosen when the hash is created), and one field per kept event, its sequence number → its
 * JSON ('' for a priming event). Kept events are contiguous from `h` to `s`, so the count bound
 * is `s - h + 1`. Append and replay are one Lua script each (one round trip, atomic across
 * instances); every append refreshes the key's PEXPIRE.
 *
 * Event ids are `<streamId>#<epoch>-<seq>`: Redis numbers a stream's events for every instance
 * (HINCRBY), and the epoch tells a stream from an earlier one of the same id that expired, was
 * deleted or went with a Redis that lost its data, so an old cursor never replays new events.
 */
import type { JsonRpcMessage } from '../../protocol/index.js';
import type { EventStore } from '../../server/legacy/spi.js';
import type { RedisLink } from '../link.js';

/** How a `RedisEventStore` keys and bounds the SSE events it keeps for resumption. */
export interface RedisEventStoreOptions {
  /** Key prefix, one per server deployment, the same on all its instances (default 'janus:'). */
  prefix?: string;
  /** Events kept per stream, the oldest dropped first (default 1000). */
  maxEventsPerStream?: number;
  /** Bytes of event JSON (UTF-8) kept per stream, the oldest dropped first; a larger event is sent but not kept (default 4 MiB). */
  maxBytesPerStream?: number;
  /** A stream not appended to for this long expires in Redis (default 5 minutes). */
  ttlMs?: number;
  /** How long one command may wait for Redis (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reports Redis failing under append or deleteStreams, once per outage (default: console.error). */
  onError?: (error: Error) => void;
}

/**
 * KEYS: the stream's hash. ARGV: the event's JSON ('' for priming), maxEvents, maxBytes, ttlMs,
 * an epoch for a new stream. Returns { epoch, seq }.
 */
const APPEND = `
local k = KEYS[1]
local json = ARGV[1]
local maxEvents = tonumber(ARGV[2])
local maxBytes = tonumber(ARGV[3])
local epoch = redis.call('HGET', k, 'e')
if not epoch then
  epoch = ARGV[5]
  redis.call('HSET', k, 'e', epoch, 'h', 1, 'b', 0)
end
local seq = redis.call('HINCRBY', k, 's', 1)
local head = tonumber(redis.call('HGET', k, 'h'))
redis.call('HSET', k, seq, json)
local bytes = redis.call('HINCRBY', k, 'b', #json)
-- An event larger than maxBytes goes too, with every one before it.
while head <= seq and (seq - head + 1 > maxEvents or bytes > maxBytes) do
  bytes = bytes - redis.call('HSTRLEN', k, head)
  redis.call('HDEL', k, head)
  head = head + 1
end
redis.call('HSET', k, 'h', head, 'b', bytes)
redis.call('PEXPIRE', k, ARGV[4])
return { epoch, seq }
`;

/**
 * KEYS: the stream's hash. ARGV: the cursor's epoch, its seq. Returns nil for a stream that is
 * not there, of another epoch, or behind the cursor; else { seq, json, seq, json, … } of the
 * kept events after the cursor, priming events left out.
 */
const REPLAY = `
local k = KEYS[1]
local meta = redis.call('HMGET', k, 'e', 's', 'h')
if meta[1] ~= ARGV[1] then return false end
local last = tonumber(meta[2])
local after = tonumber(ARGV[2])
if after > last then return false end
local out = {}
for i = math.max(after + 1, tonumber(meta[3])), last do
  local json = redis.call('HGET', k, i)
  if json and json ~= '' then
    out[#out + 1] = i
    out[#out + 1] = json
  end
end
return out
`;

/** The tail of an event id this store issued through Redis: `<epoch>-<seq>`. */
const CURSOR = /^([0-9a-f]{8})-(\d{1,15})$/;

/**
 * An `EventStore` for `serveHttp(server, { eventStore })` on Redis, shared by every instance
 * that uses the same Redis and prefix. While Redis fails, events are still sent live with ids
 * that resume nothing (`<streamId>#L<n>`), and replay rejects.
 */
export class RedisEventStore implements EventStore {
  readonly #link: RedisLink;
  readonly #timeoutMs: number;
  readonly #prefix: string;
  readonly #maxEvents: string;
  readonly #maxBytes: string;
  readonly #ttlMs: string;
  readonly #onError: (error: Error) => void;
  /** Ids for events Redis did not take. */
  #local = 0;
  /** Redis failed and has not answered since: an outage is reported once. */
  #down = false;

  constructor(link: RedisLink, options: RedisEventStoreOptions = {}) {
    this.#link = link;
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#prefix = options.prefix ?? 'janus:';
    this.#maxEvents = String(options.maxEventsPerStream ?? 1000);
    this.#maxBytes = String(options.maxBytesPerStream ?? 4 * 1024 * 1024);
    this.#ttlMs = String(Math.max(1, Math.ceil(options.ttlMs ?? 5 * 60_000)));
    this.#onError = options.onError ?? ((e) => console.error('[janus-mcp/redis]', e));
  }

  /** Never rejects: the SSE channel sends the event with the id it gets, stored or not. */
  async append(streamId: string, message: JsonRpcMessage | undefined, json?: string): Promise<string> {
    const text = message === undefined ? '' : (json ?? JSON.stringify(message));
    try {
      const newEpoch = crypto.randomUUID().slice(0, 8);
      const [epoch, seq] = (await this.#run(APPEND, streamId, [text, this.#maxEvents, this.#maxBytes, this.#ttlMs, newEpoch])) as [
        string,
        number,
      ];
      this.#down = false;
      return `${streamId}#${epoch}-${seq}`;
    } catch (e) {
      this.#failed(`Cannot store an SSE event of stream ${streamId}: it is sent, but a client cannot resume from it`, e);
      return `${streamId}#L${++this.#local}`;
    }
  }

  /** Rejects when Redis fails: whether the cursor is known cannot be told. */
  async replayAfter(lastEventId: string, sink: (eventId: string, message: JsonRpcMessage) => void): Promise<string | undefined> {
    const hash = lastEventId.lastIndexOf('#');
    const cursor = CURSOR.exec(lastEventId.slice(hash + 1));
    const epoch = cursor?.[1];
    const seq = cursor?.[2];
    if (hash < 0 || epoch === undefined || seq === undefined) return undefined;
    const streamId = lastEventId.slice(0, hash);
    let reply: Array<number | string> | null;
    try {
      reply = (await this.#run(REPLAY, streamId, [epoch, seq])) as Array<number | string> | null;
    } catch (e) {
      throw new Error('Cannot resume an SSE stream: the event store (Redis) is unavailable', { cause: e });
    }
    this.#down = false;
    if (reply === null) return undefined;
    for (let i = 0; i < reply.length; i += 2) {
      sink(`${streamId}#${epoch}-${reply[i]}`, JSON.parse(String(reply[i + 1])) as JsonRpcMessage);
    }
    return streamId;
  }

  /** DEL (one per slot on a cluster). On failure the keys are left to expire (ttlMs), and the outage is reported. */
  async deleteStreams(streamIds: readonly string[]): Promise<void> {
    if (streamIds.length === 0) return;
    try {
      await this.#link.del(
        streamIds.map((id) => this.#key(id)),
        this.#timeoutMs,
      );
      this.#down = false;
    } catch (e) {
      this.#failed(`Cannot delete ${streamIds.length} SSE stream(s): they expire in Redis after ttlMs`, e);
    }
  }

  /** One script on one stream's key: one round trip (EVALSHA; EVAL when Redis lacks it). */
  #run(script: string, streamId: string, args: string[]): Promise<unknown> {
    return this.#link.script(script, [this.#key(streamId)], args, this.#timeoutMs);
  }

  #key(streamId: string): string {
    return `${this.#prefix}sse:${streamId}`;
  }

  #failed(what: string, cause: unknown): void {
    if (this.#down) return;
    this.#down = true;
    this.#onError(new Error(`[janus-mcp/redis] ${what} (the event store, Redis, is unavailable)`, { cause }));
  }
}
