/**
 * A token store in a JSON file, for applications that should not ask the user to log in at
 * every start (Node only; `node:fs` is loaded when it is first used). The file holds refresh
 * tokens and client secrets: it is written with mode 0600 (its folder 0700 when created here),
 * and replaced whole by a rename so that a crash never leaves half a file. Writes of one store
 * are queued; two processes writing the same file at once: the last one wins.
 */
import { authError } from './errors.js';
import type { StoredAuthorization, TokenStore } from './token-store.js';

type Records = Record<string, StoredAuthorization>;

/**
 * A {@link TokenStore} in a JSON file (Node only), so that an application does not ask the user to
 * log in at every start. The file holds secrets: it is written with mode 0600 and replaced whole,
 * by a rename.
 *
 * @example
 * ```ts
 * const client = await connect(url, { auth: { store: new FileTokenStore(`${homedir()}/.my-app/tokens.json`) } });
 * ```
 */
export class FileTokenStore implements TokenStore {
  private queue: Promise<unknown> = Promise.resolve();

  /** @param path The JSON file (created on the first write). */
  constructor(readonly path: string) {}

  /** The record under `key` in the file, after the writes queued before it. */
  async get(key: string): Promise<StoredAuthorization | undefined> {
    await this.queue;
    return (await this.load())[key];
  }

  /** Writes the record under `key` to the file (writes are queued in order). */
  set(key: string, value: StoredAuthorization): Promise<void> {
    return this.update((records) => {
      records[key] = value;
    });
  }

  /** Removes the record under `key` from the file. */
  delete(key: string): Promise<void> {
    return this.update((records) => {
      delete records[key];
    });
  }

  private update(change: (records: Records) => void): Promise<void> {
    const run = this.queue.then(async () => {
      const records = await this.load();
      change(records);
      await this.save(records);
    });
    this.queue = run.catch(() => {});
    return run;
  }

  private async load(): Promise<Records> {
    const { readFile } = await import('node:fs/promises');
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw authError(`the token store ${this.path} cannot be read: ${(e as Error).message}`, e);
    }
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Records;
    } catch {
      // reported below
    }
    throw authError(`the token store ${this.path} is not a JSON object: delete it to start again (the user logs in again).`);
  }

  private async save(records: Records): Promise<void> {
    const { mkdir, rename, writeFile } = await import('node:fs/promises');
    const { dirname } = await import('node:path');
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, `${JSON.stringify(records, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.path);
  }
}
