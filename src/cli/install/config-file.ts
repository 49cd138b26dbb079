/**
 * A host's config file, one server entry added: read, merged by editing the text in place
 * (json-text.ts), checked, and written atomically (a temporary file in the same folder, then a
 * rename), so a host reading the file never sees half of it and a failed write leaves it whole.
 */
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type Json, type JsonObject, JsonSyntaxError, type Node, memberOf, parseText } from './json-text.js';

/** Why a config file was left as it was: said to the user as is (exit code 1). */
export class ConfigFileError extends Error {
  override name = 'ConfigFileError';
}

export interface MergeRequest {
  /** The file, for messages. */
  readonly file: string;
  /** Its text, or undefined when there is no file yet. */
  readonly text: string | undefined;
  /** Comments and trailing commas allowed (VS Code's files). */
  readonly jsonc: boolean;
  /** The keys down to the object of servers: `['mcpServers']`, `['projects', '/my/app', 'mcpServers']`. */
  readonly path: readonly string[];
  readonly name: string;
  readonly entry: JsonObject;
  /** Replace an entry of the same name instead of refusing. */
  readonly force: boolean;
}

export interface Merged {
  readonly text: string;
  /** An entry of that name was there and is replaced. */
  readonly replaced: boolean;
}

/** The file's text, or undefined when it does not exist. */
export function readConfig(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigFileError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

export function mergeEntry(request: MergeRequest): Merged {
  const { file, text, path, name, entry } = request;
  if (text === undefined || text.trim() === '')
    return { text: `${JSON.stringify(nested([...path, name], entry), null, 2)}\n`, replaced: false };

  const parsed = parse(file, text, request.jsonc);
  if (parsed.root.members === undefined) throw new ConfigFileError(`${file} is not a JSON object at the top level; it was left as it was`);
  const edit = new TextEdit(text);
  let node = parsed.root;
  for (const [depth, key] of path.entries()) {
    const member = memberOf(node, key);
    if (member === undefined) {
      edit.insertMember(node, depth, key, nested([...path.slice(depth + 1), name], entry));
      return check(request, parsed.strict, edit.result(), false);
    }
    if (member.value.members === undefined) {
      throw new ConfigFileError(`${file}: ${path.slice(0, depth + 1).join(' → ')} is not a JSON object; it was left as it was`);
    }
    node = member.value;
  }
  const existing = memberOf(node, name);
  if (existing === undefined) {
    edit.insertMember(node, path.length, name, entry);
    return check(request, parsed.strict, edit.result(), false);
  }
  if (!request.force) {
    throw new ConfigFileError(
      `${file} already has a server named "${name}"; it was left as it was. Choose another --name, or add --force to replace it`,
    );
  }
  edit.replace(existing.value, path.length + 1, entry);
  return check(request, parsed.strict, edit.result(), true);
}

function parse(file: string, text: string, jsonc: boolean) {
  try {
    return parseText(text, jsonc);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    throw new ConfigFileError(
      `${file} is not valid JSON${jsonc ? ' (with comments)' : ''}: ${e.message}. It was left as it was: fix it, or move it away, and run this again`,
    );
  }
}

/**
 * The edited text must mean what the old one meant with the one entry set: a guard on the text
 * editing, so that a mistake in it can never reach the user's file.
 */
function check(request: MergeRequest, oldStrict: string, text: string, replaced: boolean): Merged {
  const expected = JSON.parse(oldStrict) as Json;
  let container = expected as JsonObject;
  for (const key of request.path) {
    if (!Object.hasOwn(container, key)) define(container, key, {});
    container = container[key] as JsonObject;
  }
  define(container, request.name, request.entry);
  const actual = JSON.parse(parseText(text, request.jsonc).strict) as Json;
  if (!isDeepStrictEqual(actual, expected))
    throw new Error(`internal error: merging into ${request.file} went wrong; the file was left as it was`);
  return { text, replaced };
}

/** Sets an own property, whatever its name (`__proto__` included). */
function define(object: JsonObject, key: string, value: Json): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `{ a: { b: value } }` for the keys `['a', 'b']`. */
function nested(keys: readonly string[], value: Json): JsonObject {
  const object: JsonObject = {};
  define(object, keys[0]!, keys.length === 1 ? value : nested(keys.slice(1), value));
  return object;
}

/** Edits of the text in the file's own style: its indentation and line ends. */
class TextEdit {
  private readonly unit: string;
  private readonly eol: string;
  private edited: string;

  constructor(private readonly text: string) {
    this.unit = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
    this.eol = text.includes('\r\n') ? '\r\n' : '\n';
    this.edited = text;
  }

  /** Adds `"key": value` as the last member of the object `node`, nested `depth` objects deep. */
  insertMember(node: Node, depth: number, key: string, value: Json): void {
    const members = node.members!;
    const multiline = members.length === 0 || /[\r\n]/.test(this.text.slice(node.start, members[0]!.start));
    const member = `${JSON.stringify(key)}: ${this.format(value, depth + 1, multiline)}`;
    if (members.length > 0) {
      const at = members.at(-1)!.value.end;
      this.splice(at, at, multiline ? `,${this.eol}${this.unit.repeat(depth + 1)}${member}` : `, ${member}`);
      return;
    }
    // An empty object: the member on its own line; anything inside (a comment) stays after it.
    const inside = this.text.slice(node.start + 1, node.end - 1);
    const rest = inside.trim() === '' ? `${this.eol}${this.unit.repeat(depth)}` : inside;
    this.splice(node.start + 1, node.end - 1, `${this.eol}${this.unit.repeat(depth + 1)}${member}${rest}`);
  }

  /** Replaces the value `node`, nested `depth` objects deep. */
  replace(node: Node, depth: number, value: Json): void {
    this.splice(node.start, node.end, this.format(value, depth, true));
  }

  result(): string {
    return this.edited;
  }

  private format(value: Json, depth: number, multiline: boolean): string {
    if (!multiline) return JSON.stringify(value);
    return JSON.stringify(value, null, this.unit)
      .split('\n')
      .join(this.eol + this.unit.repeat(depth));
  }

  /** One edit per merge: positions refer to the original text. */
  private splice(from: number, to: number, insert: string): void {
    this.edited = this.text.slice(0, from) + insert + this.text.slice(to);
  }
}

/**
 * Writes `text` to `file` atomically: a temporary file beside it, then a rename over it. A link is
 * followed (a config file kept in a dotfiles folder stays there); the file's mode is kept.
 */
export function writeAtomically(file: string, text: string): void {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // no file yet
  }
  const mode = statSync(target, { throwIfNoEntry: false })?.mode;
  mkdirSync(dirname(target), { recursive: true });
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text, { flag: 'w' });
    if (mode !== undefined) chmodSync(temporary, mode & 0o7777);
    renameSync(temporary, target);
  } catch (e) {
    try {
      unlinkSync(temporary);
    } catch {
      // never made
    }
    throw new ConfigFileError(`cannot write ${file}: ${(e as Error).message}`);
  }
}
