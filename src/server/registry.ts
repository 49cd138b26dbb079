/**
 * What the server offers, built once and read by a stateless core. Lists keep
 * registration order, so `tools/list` is deterministic (2026-07-28 changelog). Every
 * change bumps a version and is announced to the server, which tells both eras.
 */
import { JanusError } from '../protocol/errors.js';
import type { PromptEntry } from './features/prompts.js';
import type { ResourceEntry, TemplateEntry } from './features/resources.js';
import type { ToolEntry } from './features/tools.js';
/** The lists whose changes clients hear of (`notifications/<kind>/list_changed`). */
export type ListKind = 'tools' | 'prompts' | 'resources';

/** What each of the registry's maps holds. */
export interface Entries {
  tools: ToolEntry;
  prompts: PromptEntry;
  resources: ResourceEntry;
  templates: TemplateEntry;
}
export type EntryKind = keyof Entries;

export class Registry {
  readonly tools = new Map<string, ToolEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  readonly resources = new Map<string, ResourceEntry>();
  readonly templates = new Map<string, TemplateEntry>();
  private readonly maps: { readonly [K in EntryKind]: Map<string, Entries[K]> } = {
    tools: this.tools,
    prompts: this.prompts,
    resources: this.resources,
    templates: this.templates,
  };
  /** Bumped on every change; caches of shaped lists key on it. */
  version = 0;
  /** Set by the server: called after each change. */
  onChange: (kind: ListKind) => void = () => {};

  add<K extends EntryKind>(kind: K, key: string, entry: Entries[K]): void {
    const map = this.maps[kind];
    if (map.has(key)) throw new JanusError('REGISTRATION', `${singular(kind)} "${key}" is already registered`);
    map.set(key, entry);
    this.changed(kind);
  }

  replace<K extends EntryKind>(kind: K, key: string, entry: Entries[K]): void {
    this.maps[kind].set(key, entry);
    this.changed(kind);
  }

  remove(kind: EntryKind, key: string): boolean {
    const removed = this.maps[kind].delete(key);
    if (removed) this.changed(kind);
    return removed;
  }

  /**
   * Makes one list exactly `entries`, in their order. Clients are told only when the list they
   * see changed (keys, order or wire shape): a new handler behind the same shape is swapped
   * silently.
   */
  replaceAll<K extends EntryKind>(kind: K, entries: ReadonlyMap<string, Entries[K]>): void {
    const map: Map<string, Entries[K]> = this.maps[kind];
    const same = sameListing(map, entries);
    map.clear();
    for (const [key, entry] of entries) map.set(key, entry);
    if (same) this.version++;
    else this.changed(kind);
  }

  private changed(kind: EntryKind): void {
    this.version++;
    this.onChange(kind === 'templates' ? 'resources' : kind);
  }
}

function sameListing(a: ReadonlyMap<string, { wire: unknown }>, b: ReadonlyMap<string, { wire: unknown }>): boolean {
  if (a.size !== b.size) return false;
  const left = [...a];
  const right = [...b];
  return left.every(([key, entry], i) => key === right[i]![0] && JSON.stringify(entry.wire) === JSON.stringify(right[i]![1].wire));
}

function singular(map: string): string {
  return map === 'templates' ? 'resource template' : map.slice(0, -1);
}
