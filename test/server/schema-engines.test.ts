/**
 * Raw JSON Schema tools on a runtime that refuses code generation (as Cloudflare workerd does;
 * here Node with `--disallow-code-generation-from-strings`, real processes over stdio): the
 * server notices and validates with the interpreting engine instead of Ajv, registering
 * schemas and answering calls as it does elsewhere, and a caller reads the same message for
 * the same bad arguments on both.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, connect } from '../../src/client/index.js';
import { fixture } from '../support/common.js';
import { CASES } from '../fixtures/schema/corpus.js';

const SERVER = fixture('schema', 'engines-stdio.js');
let compiled: Client;
let interpreted: Client;

before(async () => {
  [compiled, interpreted] = await Promise.all([
    connect({ command: process.execPath, args: [SERVER] }),
    connect({ command: process.execPath, args: ['--disallow-code-generation-from-strings', SERVER] }),
  ]);
});
after(() => Promise.all([compiled?.close(), interpreted?.close()]));

const text = (r: { content: unknown }) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

async function answer(client: Client, tool: string, args: Record<string, unknown>): Promise<{ error: boolean; text: string }> {
  const r = await client.callTool(tool, args);
  return { error: r.isError === true, text: text(r) };
}

test('each process validates with the engine its runtime allows', async () => {
  assert.equal(text(await compiled.callTool('engine', {})), 'ajv');
  assert.equal(text(await interpreted.callTool('engine', {})), 'interpreted');
});

for (const [name, c] of Object.entries(CASES)) {
  test(`${name}: the same message for the same bad arguments, and good ones pass, on both engines`, async () => {
    const [a, b] = await Promise.all([answer(compiled, name, c.bad), answer(interpreted, name, c.bad)]);
    assert.ok(a.error && b.error, `both refuse ${JSON.stringify(c.bad)}: ${a.text} | ${b.text}`);
    assert.match(a.text, new RegExp(`^Invalid arguments for tool ${name}: `));
    // Several errors may come in another order; each is worded the same.
    const parts = (t: string) =>
      t
        .replace(/^[^:]*: /, '')
        .split('; ')
        .sort();
    if (c.summaryOnly) {
      assert.equal(parts(b.text).length, 1);
      assert.ok(parts(a.text).includes(parts(b.text)[0]!), `${b.text} among ${a.text}`);
    } else {
      assert.deepEqual(parts(b.text), parts(a.text));
    }
    assert.deepEqual(await answer(interpreted, name, c.good), { error: false, text: 'valid' });
    assert.deepEqual(await answer(compiled, name, c.good), { error: false, text: 'valid' });
  });
}

test('a valid schema registers where code generation is refused; an invalid one is said to be invalid on both', async () => {
  const valid = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
  assert.equal(text(await interpreted.callTool('register', { schema: valid })), 'registered');
  const invalid = { type: 'object', properties: { a: { type: 'string', pattern: '(' } } };
  for (const client of [compiled, interpreted]) {
    assert.match(
      text(await client.callTool('register', { schema: invalid })),
      /^tool "late" input: not a valid JSON Schema: .*regular expression/,
    );
  }
  assert.match(
    text(await interpreted.callTool('register', { schema: { type: 'object', properties: { a: { type: 'text' } } } })),
    /^tool "late" input: not a valid JSON Schema: schema is invalid: \/properties\/a\/type must be one of array, boolean/,
  );
});
