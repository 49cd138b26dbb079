/**
 * The tasks extension's messages checked against its official schema
 * (spec/extensions/tasks/schema.json, see spec/README.md), for tests that look at one result
 * directly; the test peers check every message they see the same way (wire-schema.ts).
 */
import assert from 'node:assert/strict';
import { tasksExtensionErrors } from './wire-schema.js';

/** Asserts that `value` is a valid `def` (e.g. `CreateTaskResult`, `GetTaskResult`, `TaskStatusNotification`). */
export function assertTaskShape(def: string, value: unknown): void {
  const errors = tasksExtensionErrors(def, value);
  assert.deepStrictEqual(errors, [], `${def} invalid in ${JSON.stringify(value)}`);
}
