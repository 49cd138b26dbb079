/** Small facts every test suite needs, named once: the `_meta` keys (from the library itself) and a PID check. */
import { META } from '../../src/protocol/meta.js';

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
