/**
 * Small facts every test suite needs, named once: message types, the revisions, the `_meta`
 * keys (from the library itself), where the compiled fixtures are, and a PID check.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { META } from '../../src/protocol/meta.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';

/** A JSON-RPC message as tests read it: any field, no narrowing. */
export type Msg = Record<string, any>;
export type Id = string | number;

/** The revisions, spelled out here rather than read from the library so the tests pin them. */
export const MODERN = '2026-07-28';
export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];
export const REVISIONS: readonly ProtocolVersion[] = [...LEGACY_REVISIONS, MODERN];

export const META_VERSION = META.protocolVersion;
export const META_CAPS = META.clientCapabilities;
export const META_CLIENT = META.clientInfo;
export const META_LOG = META.logLevel;
export const META_SERVER = META.serverInfo;
export const META_SUB = META.subscriptionId;

/** Whether a process we started is still alive (signal 0 probes without touching it). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A compiled fixture under test/fixtures/ (`fixture('client-raw', 'crash.js')`). */
export function fixture(...parts: string[]): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', ...parts);
}
