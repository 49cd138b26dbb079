/**
 * Elicitation asked in the terminal (client/elicitation.mdx): the server's message, then
 * answer, decline or cancel, then one question per field of the requested schema (its
 * restricted subset: strings, numbers, booleans, single and multiple choice), with defaults
 * and choices shown. Questions go to stderr, so stdout keeps only the result.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import type { ElicitParams, ElicitResult } from '../protocol/index.js';
import type { Elicitor } from './answers.js';

type Value = string | number | boolean | string[];
interface Choice {
  value: string;
  title: string;
}
interface Field {
  name: string;
  schema: Record<string, unknown>;
  required: boolean;
}

class Cancelled extends Error {}

/**
 * The terminal's lines, one interface for the whole run: lines typed (or pasted) ahead of
 * their question wait in a queue instead of being lost. Ctrl-C or Ctrl-D cancels.
 */
class LineReader {
  private rl: Interface | undefined;
  private readonly lines: string[] = [];
  private waiting: { resolve: (line: string) => void; reject: (e: Error) => void } | undefined;
  private ended = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    readonly output: NodeJS.WritableStream,
  ) {}

  ask(question: string): Promise<string> {
    if (this.ended) return Promise.reject(new Cancelled());
    const rl = (this.rl ??= this.open());
    rl.setPrompt(question);
    rl.prompt();
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  close(): void {
    this.ended = true;
    this.rl?.close();
  }

  private open(): Interface {
    const rl = createInterface({ input: this.input, output: this.output, terminal: true });
    rl.on('line', (line) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting.resolve(line);
      else this.lines.push(line);
    });
    rl.on('SIGINT', () => rl.close());
    rl.once('close', () => {
      this.ended = true;
      this.waiting?.reject(new Cancelled());
      this.waiting = undefined;
    });
    return rl;
  }
}

export interface TerminalElicitor {
  readonly elicit: Elicitor;
  /** Lets go of the terminal (stdin), so the process can end. */
  close(): void;
}

export function terminalElicitor(
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): TerminalElicitor {
  const reader = new LineReader(input, output);
  // One question at a time: a 2026-07-28 round may carry several requests at once.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    elicit: (params) => {
      const turn = queue.then(() => askAll(params, reader));
      queue = turn.catch(() => {});
      return turn;
    },
    close: () => reader.close(),
  };
}

async function askAll(params: ElicitParams, reader: LineReader): Promise<ElicitResult> {
  const { output } = reader;
  const ask = (question: string) => reader.ask(question);
  try {
    output.write(`\nThe server asks: ${params.message}\n`);
    if (params.mode === 'url') output.write(`  Open: ${params.url}\n`);
    const action = await chooseAction(ask, params.mode === 'url' ? '[o]pened it' : '[a]nswer');
    if (action !== 'accept' || params.mode === 'url') return { action };
    const content: Record<string, Value> = {};
    for (const field of fieldsOf(params.requestedSchema)) {
      const value = await askField(field, ask, output);
      if (value !== undefined) content[field.name] = value;
    }
    return { action: 'accept', content };
  } catch (e) {
    if (e instanceof Cancelled) {
      output.write('\n');
      return { action: 'cancel' };
    }
    throw e;
  }
}

type Ask = (question: string) => Promise<string>;

async function chooseAction(ask: Ask, first: string): Promise<ElicitResult['action']> {
  for (;;) {
    const reply = (await ask(`${first}, [d]ecline or [c]ancel? `)).trim().toLowerCase();
    if (reply === '' || reply === 'a' || reply === 'o' || reply === 'answer' || reply === 'accept') return 'accept';
    if (reply === 'd' || reply === 'decline') return 'decline';
    if (reply === 'c' || reply === 'cancel') return 'cancel';
  }
}

function fieldsOf(schema: Record<string, unknown>): Field[] {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>).map(([name, s]) => ({
    name,
    schema: s ?? {},
    required: required.has(name),
  }));
}

/** The choices of a single-select enum (`enum` with optional `enumNames`, or `oneOf`/`anyOf` of `const`s). */
function choicesOf(schema: Record<string, unknown>): Choice[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as string[]) : [];
    return (schema.enum as unknown[]).map((v, i) => ({ value: String(v), title: names[i] ?? String(v) }));
  }
  const options = (schema.oneOf ?? schema.anyOf) as Array<{ const?: unknown; title?: string }> | undefined;
  if (Array.isArray(options) && options.every((o) => o && 'const' in o)) {
    return options.map((o) => ({ value: String(o.const), title: o.title ?? String(o.const) }));
  }
  return undefined;
}

async function askField(field: Field, ask: Ask, output: NodeJS.WritableStream): Promise<Value | undefined> {
  const { schema } = field;
  const single = choicesOf(schema);
  const multi = schema.type === 'array' ? choicesOf((schema.items ?? {}) as Record<string, unknown>) : undefined;
  const choices = single ?? multi;
  const label = String(schema.title ?? field.name);
  const hint = typeof schema.description === 'string' && schema.description !== label ? ` (${schema.description})` : '';
  if (choices)
    output.write(
      `  ${label}${hint}:\n${choices.map((c, i) => `    ${i + 1}) ${c.title}${c.title !== c.value ? ` [${c.value}]` : ''}`).join('\n')}\n`,
    );
  const kind = multi ? 'numbers or values, comma-separated' : single ? 'number or value' : typeString(schema);
  const shown = schema.default === undefined ? '' : ` [${shownDefault(schema.default)}]`;
  const question = `  ${choices ? 'choose' : label}${choices ? '' : hint} (${kind}${field.required ? '' : ', optional'})${shown}: `;
  for (;;) {
    const reply = (await ask(question)).trim();
    if (reply === '') {
      if (schema.default !== undefined) return schema.default as Value;
      if (!field.required) return undefined;
      output.write('    required\n');
      continue;
    }
    const value = parse(reply, schema, single, multi);
    if (value.ok) return value.value;
    output.write(`    ${value.problem}\n`);
  }
}

function shownDefault(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return Array.isArray(value) ? value.join(',') : String(value);
}

function typeString(schema: Record<string, unknown>): string {
  if (schema.type === 'boolean') return 'yes/no';
  if (schema.type === 'integer') return 'whole number';
  if (schema.type === 'number') return 'number';
  return typeof schema.format === 'string' ? `text, ${schema.format}` : 'text';
}

type Parsed = { ok: true; value: Value } | { ok: false; problem: string };

function pick(reply: string, choices: Choice[]): string | undefined {
  const n = Number(reply);
  if (Number.isInteger(n) && n >= 1 && n <= choices.length) return choices[n - 1]!.value;
  return choices.find((c) => c.value === reply || c.title.toLowerCase() === reply.toLowerCase())?.value;
}

function parse(reply: string, schema: Record<string, unknown>, single?: Choice[], multi?: Choice[]): Parsed {
  if (single) {
    const v = pick(reply, single);
    return v === undefined ? { ok: false, problem: `one of 1-${single.length}` } : { ok: true, value: v };
  }
  if (multi) {
    const picked = reply.split(',').map((part) => pick(part.trim(), multi));
    return picked.some((v) => v === undefined)
      ? { ok: false, problem: `numbers 1-${multi.length}, comma-separated` }
      : { ok: true, value: picked as string[] };
  }
  if (schema.type === 'boolean') {
    if (/^(y|yes|true)$/i.test(reply)) return { ok: true, value: true };
    if (/^(n|no|false)$/i.test(reply)) return { ok: true, value: false };
    return { ok: false, problem: 'yes or no' };
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    const n = Number(reply);
    if (!Number.isFinite(n) || (schema.type === 'integer' && !Number.isInteger(n)))
      return { ok: false, problem: `a ${typeString(schema)}` };
    if (typeof schema.minimum === 'number' && n < schema.minimum) return { ok: false, problem: `at least ${schema.minimum}` };
    if (typeof schema.maximum === 'number' && n > schema.maximum) return { ok: false, problem: `at most ${schema.maximum}` };
    return { ok: true, value: n };
  }
  if (typeof schema.minLength === 'number' && reply.length < schema.minLength)
    return { ok: false, problem: `at least ${schema.minLength} characters` };
  if (typeof schema.maxLength === 'number' && reply.length > schema.maxLength)
    return { ok: false, problem: `at most ${schema.maxLength} characters` };
  return { ok: true, value: reply };
}
