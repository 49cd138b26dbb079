/**
 * The board inside the host's iframe. The host sends the `show_todos` call (its arguments, then
 * its result); the board renders them, and calls `add_todo` and `toggle_todo` on the server
 * through the host when the user adds or ticks an item.
 */
import { App, type McpUiToolResultNotification } from '@modelcontextprotocol/ext-apps';
import { Board } from '../src/board.js';

type ToolResult = McpUiToolResultNotification['params'];

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const title = element<HTMLHeadingElement>('title');
const count = element<HTMLParagraphElement>('count');
const items = element<HTMLUListElement>('items');
const form = element<HTMLFormElement>('add');
const text = element<HTMLInputElement>('text');
const status = element<HTMLParagraphElement>('status');

/** The list on screen; set by the tool's arguments, kept by each result. */
let list: string | undefined;

function showStatus(message: string, error = false): void {
  status.textContent = message;
  status.className = error ? 'error' : '';
}

function render(board: Board): void {
  list = board.list;
  title.textContent = board.list;
  const open = board.items.filter((item) => !item.done).length;
  count.textContent = board.items.length === 0 ? 'Nothing to do yet.' : `${open} of ${board.items.length} open`;
  items.replaceChildren(
    ...board.items.map((item) => {
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = item.done;
      box.addEventListener('change', () => void call('toggle_todo', { list: board.list, id: item.id }));
      const label = document.createElement('label');
      const name = document.createElement('span');
      name.textContent = item.text; // text, never HTML: items are user input
      label.append(box, name);
      const li = document.createElement('li');
      li.className = item.done ? 'done' : '';
      li.dataset.id = String(item.id);
      li.append(label);
      return li;
    }),
  );
}

/** Renders a tool result: the board, or what went wrong. */
function show(result: ToolResult): void {
  const text = result.content?.find((c) => c.type === 'text')?.text;
  const board = Board.safeParse(result.structuredContent);
  if (result.isError) showStatus(text ?? 'The tool failed.', true);
  else if (!board.success) showStatus('The server sent a result this board cannot read.', true);
  else {
    showStatus('');
    render(board.data);
  }
}

const app = new App({ name: 'Todo board', version: '1.0.0' });

// Handlers go before connect(): the host may send the call as soon as the board is ready.
app.ontoolinput = ({ arguments: args }) => {
  if (typeof args?.list === 'string') {
    list = args.list;
    title.textContent = args.list;
    count.textContent = 'Loading…';
  }
};
app.ontoolresult = show;

async function call(name: 'add_todo' | 'toggle_todo', args: Record<string, unknown>): Promise<boolean> {
  try {
    const result = await app.callServerTool({ name, arguments: args });
    show(result);
    return !result.isError;
  } catch (error) {
    showStatus(`Could not reach the server: ${error instanceof Error ? error.message : String(error)}`, true);
    return false;
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (list === undefined) {
    showStatus('No list yet: ask for one first.', true);
    return;
  }
  void call('add_todo', { list, text: text.value }).then((added) => {
    if (added) text.value = '';
  });
});

app.connect().catch((error: unknown) => {
  showStatus(`Could not connect to the host: ${error instanceof Error ? error.message : String(error)}`, true);
});
