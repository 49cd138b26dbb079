/**
 * A todo board as an MCP App: `show_todos` comes with an interactive UI (a `ui://` resource the
 * host renders in a sandboxed iframe), and the UI adds and ticks items by calling `add_todo`
 * and `toggle_todo` through the host. Served over Streamable HTTP.
 */
import { readFileSync } from 'node:fs';
import { apps } from 'janus-mcp/apps';
import { serveHttp } from 'janus-mcp/http';
import { createServer, toolError } from 'janus-mcp/server';
import { z } from 'zod';
import { Board, summary } from './board.js';
import { MAX_ITEMS, TodoLists } from './todos.js';

/** The UI, one self-contained HTML file that `npm run build` writes next to this module. */
const uiFile = new URL('./ui/todo-board.html', import.meta.url);
let html: string;
try {
  html = readFileSync(uiFile, 'utf8');
} catch {
  console.error(`The UI is missing (${uiFile.pathname}): run "npm run build" first.`);
  process.exit(1);
}

const UI_URI = 'ui://todos/board.html';
const listName = z.string().trim().min(1).max(40).describe('The list, by name: "groceries", "work", …');

const todos = new TodoLists();
const ui = apps();
const server = createServer({ name: 'todo-board', version: '1.0.0', extensions: [ui] });

/** Every tool answers with the board: text for the model, structured content for the UI. */
const answer = (board: Board) => ({ content: [{ type: 'text' as const, text: summary(board) }], structuredContent: board });

ui.tool(
  'show_todos',
  {
    title: 'Show todos',
    description: 'Shows a todo list, with a board where the user can add and tick items',
    input: z.object({ list: listName }),
    output: Board,
    annotations: { readOnlyHint: true },
    ui: { uri: UI_URI, html, title: 'Todo board', prefersBorder: true },
  },
  ({ list }) => answer(todos.board(list)),
);

// Linked to the same board, so a host shows it when the model adds an item too.
ui.tool(
  'add_todo',
  {
    title: 'Add a todo',
    description: 'Adds an item to a todo list (the list is created with its first item)',
    input: z.object({ list: listName, text: z.string().trim().min(1).max(200).describe('What to do') }),
    output: Board,
    ui: { uri: UI_URI },
  },
  ({ list, text }) => {
    if (!todos.add(list, text)) return toolError(`"${list}" already has ${MAX_ITEMS} items: tick some off first.`);
    return answer(todos.board(list));
  },
);

// Only the board's checkboxes call this one: hosts keep it from the model.
ui.tool(
  'toggle_todo',
  {
    title: 'Tick a todo',
    description: 'Marks an item of a todo list done, or open again',
    input: z.object({ list: listName, id: z.number().int().describe('The item, by its number') }),
    output: Board,
    ui: { uri: UI_URI, visibility: ['app'] },
  },
  ({ list, id }) => {
    if (!todos.toggle(list, id)) return toolError(`"${list}" has no item #${id}.`);
    return answer(todos.board(list));
  },
);

const http = await serveHttp(server, { port: Number(process.env.PORT ?? 3001) });
console.error(`Todo board MCP server: ${http.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void http.close().then(() => {
      server.close();
      process.exit(0);
    });
  });
}
