/** The todo lists, kept in this process: every client of the server shares them until it stops. */
import type { Board } from './board.js';

/** A list holds at most this many items, so a runaway caller cannot fill the memory. */
export const MAX_ITEMS = 200;

export class TodoLists {
  readonly #lists = new Map<string, Board['items']>();
  #nextId = 1;

  board(list: string): Board {
    return { list, items: (this.#lists.get(list) ?? []).map((item) => ({ ...item })) };
  }

  /** Adds an item; false when the list is full. */
  add(list: string, text: string): boolean {
    const items = this.#lists.get(list) ?? [];
    if (items.length >= MAX_ITEMS) return false;
    items.push({ id: this.#nextId++, text, done: false });
    this.#lists.set(list, items);
    return true;
  }

  /** Flips an item between open and done; false when the list has no such item. */
  toggle(list: string, id: number): boolean {
    const item = this.#lists.get(list)?.find((i) => i.id === id);
    if (item === undefined) return false;
    item.done = !item.done;
    return true;
  }
}
