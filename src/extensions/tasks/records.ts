/**
 * What the server side of the tasks extension makes of a record beyond its wire shape (wire.ts):
 * who owns it, the revision its result is shaped for, and its CreateTaskResult, sent unshaped.
 */
import { LATEST_LEGACY_VERSION, latestVersion, type ProtocolVersion } from '../../protocol/versions.js';
import { verbatim, type CallSite } from '../../server/extension.js';
import type { TaskRecord } from './store.js';
import { legacyTask, modernTask } from './wire.js';

/** Who may act on a task: the authenticated principal, else the handshake session, else the id's bearer. */
export function ownerOf(site: CallSite): string {
  const principal = site.inbound.principal;
  if (principal !== undefined) return `p:${principal}`;
  const session = site.session;
  return session !== undefined ? `s:${session.id}` : '';
}

/** The revision a task's result is shaped for: the newest of its design's era (2025-11-25 alone has core tasks). */
export function shapeVersion(record: TaskRecord): ProtocolVersion {
  return record.design === 'extension' ? latestVersion() : LATEST_LEGACY_VERSION;
}

/** CreateTaskResult in the record's design (answered as is, not shaped as the tool's result). */
export function created(record: TaskRecord): object {
  return verbatim(record.design === 'core' ? { task: legacyTask(record) } : modernTask(record, 'task'));
}
