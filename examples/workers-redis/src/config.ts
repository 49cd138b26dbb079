/** The settings, from the environment; a wrong one stops the program with a line saying what to set. */
import { availableParallelism } from 'node:os';

export interface Config {
  redisUrl: string;
  port: number;
  host: string;
  workers: number;
  /** How long a worker waits for the calls in flight when told to stop. */
  drainMs: number;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const redisUrl = env.REDIS_URL;
  if (!redisUrl) fail('set REDIS_URL (e.g. redis://127.0.0.1:6379): the workers share their state on Redis');
  return {
    redisUrl,
    port: integer('PORT', env.PORT, 3000, 0),
    host: env.HOST || '127.0.0.1',
    workers: integer('WORKERS', env.WORKERS, availableParallelism(), 1),
    drainMs: integer('DRAIN_MS', env.DRAIN_MS, 10_000, 0),
  };
}

function integer(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) fail(`${name} must be an integer of at least ${min}, not ${JSON.stringify(value)}`);
  return n;
}

export function fail(reason: string): never {
  console.error(`workers-redis: ${reason}`);
  process.exit(1);
}
