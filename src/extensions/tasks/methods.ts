/**
 * What the tasks extension's methods are on the wire, for both its server and the client:
 * its identifier and the requests whose `Mcp-Name` header mirrors `taskId` (ext-tasks
 * §Routing Headers). Protocol level: imports no server code.
 */
export const EXTENSION_ID = 'io.modelcontextprotocol/tasks';

const NAMED_BY_TASK: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** The params field a tasks request's `Mcp-Name` mirrors; undefined for any other method. */
export function taskNameField(method: string): string | undefined {
  return NAMED_BY_TASK.has(method) ? 'taskId' : undefined;
}
