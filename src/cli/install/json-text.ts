/**
 * A JSON document as text with the positions of its objects' members, so that one member can be
 * added or replaced by editing the text in place: every other byte of the file (its keys, their
 * order, numbers beyond double precision, indentation, and the comments of a JSONC file) stays as
 * it was. `JSON.parse` then `JSON.stringify` would lose some of that.
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export type JsonObject = { [key: string]: Json };

/** A value's span in the text; an object's members in order. */
export interface Node {
  readonly start: number;
  /** One past the value's last character. */
  readonly end: number;
  readonly members?: readonly Member[];
}

export interface Member {
  readonly key: string;
  /** Where the member's key starts. */
  readonly start: number;
  readonly value: Node;
}

/** Not JSON: `line` and `column` count from 1. */
export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${reason} at line ${line}, column ${column}`);
  }
}

export interface ParsedText {
  readonly root: Node;
  /** The text with comments and trailing commas blanked out: strict JSON, for `JSON.parse`. */
  readonly strict: string;
}

/**
 * Scans `text` as JSON, or as JSONC (comments and trailing commas, as VS Code's files allow) when
 * `jsonc` is set. Throws `JsonSyntaxError` at the first mistake.
 */
export function parseText(text: string, jsonc: boolean): ParsedText {
  const blanks: Array<[number, number]> = [];
  let i = 0;

  const fail = (reason: string, at = i): never => {
    const before = text.slice(0, at).split('\n');
    throw new JsonSyntaxError(reason, before.length, before.at(-1)!.length + 1);
  };
  const describe = (at: number) => (at >= text.length ? 'the end of the file' : `"${text[at]}"`);

  const skip = () => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else if (c === '\uFEFF' && i === 0) {
        // A byte order mark, which some Windows editors write: JSON.parse takes none.
        blanks.push([0, 1]);
        i++;
      } else if (jsonc && c === '/' && text[i + 1] === '/') {
        const from = i;
        while (i < text.length && text[i] !== '\n') i++;
        blanks.push([from, i]);
      } else if (jsonc && c === '/' && text[i + 1] === '*') {
        const from = i;
        const close = text.indexOf('*/', i + 2);
        if (close === -1) fail('unterminated comment');
        i = close + 2;
        blanks.push([from, i]);
      } else return;
    }
  };

  const string = (): string => {
    const from = i;
    i++; // the opening quote
    for (;;) {
      const c = text[i];
      if (c === undefined) fail('unterminated string', from);
      if (c === '"') break;
      if (c === '\\') i++;
      else if (c! < ' ') fail('a control character in a string');
      i++;
    }
    i++;
    try {
      return JSON.parse(text.slice(from, i)) as string;
    } catch {
      return fail('a bad escape in a string', from);
    }
  };

  const value = (): Node => {
    skip();
    const start = i;
    const c = text[i];
    if (c === '{') return object(start);
    if (c === '[') {
      i++;
      list(']', () => void value());
      return { start, end: i };
    }
    if (c === '"') {
      string();
      return { start, end: i };
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!literal) fail(`unexpected ${describe(i)}`);
    i += literal![0].length;
    return { start, end: i };
  };

  const object = (start: number): Node => {
    i++;
    const members: Member[] = [];
    list('}', () => {
      if (text[i] !== '"') fail(`expected a key in quotes, found ${describe(i)}`);
      const keyStart = i;
      const key = string();
      skip();
      if (text[i] !== ':') fail(`expected ":" after the key "${key}", found ${describe(i)}`);
      i++;
      members.push({ key, start: keyStart, value: value() });
    });
    return { start, end: i, members };
  };

  /** The items of an object or array up to `close`, separated by commas. */
  const list = (close: string, item: () => void) => {
    skip();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      skip();
      item();
      skip();
      if (text[i] === close) {
        i++;
        return;
      }
      if (text[i] !== ',') fail(`expected "," or "${close}", found ${describe(i)}`);
      const comma = i;
      i++;
      skip();
      if (text[i] === close) {
        if (!jsonc) fail('a trailing comma', comma);
        blanks.push([comma, comma + 1]);
        i++;
        return;
      }
    }
  };

  const root = value();
  skip();
  if (i < text.length) fail(`unexpected ${describe(i)} after the JSON value`);
  let strict = text;
  for (const [from, to] of blanks.reverse()) strict = strict.slice(0, from) + ' '.repeat(to - from) + strict.slice(to);
  return { root, strict };
}

/** The last member named `key` (the one `JSON.parse` keeps when a key repeats). */
export function memberOf(node: Node, key: string): Member | undefined {
  return node.members?.findLast((m) => m.key === key);
}
