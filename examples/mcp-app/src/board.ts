/**
 * What every tool of the app returns, and the UI renders: one todo list with its items. The
 * server publishes it as the tools' output schema; the UI checks each result against it, since
 * a result reaches the UI through the host.
 */
import { z } from 'zod';

export const Board = z.object({
  list: z.string(),
  items: z.array(z.object({ id: z.number(), text: z.string(), done: z.boolean() })),
});

export type Board = z.infer<typeof Board>;

/** The one-line summary a host without Apps (and the model) reads instead of the board. */
export function summary(board: Board): string {
  if (board.items.length === 0) return `"${board.list}" is empty.`;
  const open = board.items.filter((item) => !item.done).length;
  const lines = board.items.map((item) => `${item.done ? '[x]' : '[ ]'} #${item.id} ${item.text}`);
  return `"${board.list}": ${open} of ${board.items.length} open\n${lines.join('\n')}`;
}
