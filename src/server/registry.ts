/**
 * What the server offers, built once and read by a stateless core. Lists keep
 * registration order, so `tools/list` is deterministic (2026-07-28 changelog). Every
 * change bumps a version and is announced to the server, which tells both eras.
 */
import { JanusError } from '../protocol/errors.js';
import type { PromptEntry } from './features/prompts.js';
import type { ResourceEntry, TemplateEntry } from './features/resources.js';
import type { ToolEntry } from './features/tools.js';

export type ListKind = 'tools' | 'prompts' | 'resources';

export class Registry {
  readonly tools = new Map<string, ToolEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  readonly resources = new Map<string, ResourceEntry>();
  readonly templates = new Map<string, TemplateEntry>();
  /** Bumped on every change; caches of shaped lists key on it. */
  version = 0;
  /** Set by the server: called after each change. */
  onChange: (kind: ListKind) => void = () => {};

  add<K extends 'tools' | 'prompts' | 'resources' | 'templates'>(map: K, key: string, entry: Registry[K] extends Map<string, infer E> ? E : never): void {
    const m = this[map] as Map<string, unknown>;
    if (m.has(key)) throw new JanusError('REGISTRATION', `${singular(map)} "${key}" is already registered`);
    m.set(key, entry);
    this.changed(map);
  }

  replace<K extends 'tools' | 'prompts' | 'resources' | 'templates'>(map: K, key: string, entry: Registry[K] extends Map<string, infer E> ? E : never): void {
    (this[map] as Map<string, unknown>).set(key, entry);
    this.changed(map);
  }

  remove(map: 'tools' | 'prompts' | 'resources' | 'templates', key: string): boolean {
    const removed = (this[map] as Map<string, unknown>).delete(key);
    if (removed) this.changed(map);
    return removed;
  }

  private changed(map: 'tools' | 'prompts' | 'resources' | 'templates'): void {
    this.version++;
    this.onChange(map === 'templates' ? 'resources' : map);
  }
}

function singular(map: string): string {
  return map === 'templates' ? 'resource template' : map.slice(0, -1);
}
