/**
 * `ResourceNotFoundError` from a resource reader: each revision gets the code it defines for a
 * URI that names nothing (-32002 up to 2025-11-25; -32602 in 2026-07-28, which forbids -32002:
 * server/resources.mdx §Error Handling), the reader's own message and the URI in `data`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpError, ResourceNotFoundError } from '../../src/errors/index.js';
import { createServer } from '../../src/server/index.js';
import { connectInMemory } from '../../src/testing/index.js';
import { wireValidator } from '../support/wire-schema.js';

const CODES = { '2024-11-05': -32002, '2025-11-25': -32002, '2026-07-28': -32602 } as const;

test('a reader that throws ResourceNotFoundError is answered with the revision’s not-found code, its message and the URI', async () => {
  const server = createServer({ name: 'notes', version: '1.0.0' });
  const notes = new Map([['1', 'first']]);
  server.resourceTemplate('note://{id}', { name: 'note' }, (uri, { id }) => {
    const note = notes.get(id ?? '');
    if (note === undefined) throw new ResourceNotFoundError(uri, `No note ${id}; resources/list names every note`);
    return note;
  });
  for (const [version, code] of Object.entries(CODES) as Array<[keyof typeof CODES, number]>) {
    const { client, recorder, close } = await connectInMemory(server, { protocolVersion: version });
    try {
      assert.equal((await client.readResource('note://1')).contents[0]?.uri, 'note://1');
      const error = await client.readResource('note://2').then(
        () => assert.fail(`${version}: a missing note was read`),
        (e: unknown) => e,
      );
      assert.ok(error instanceof McpError, `${version}: ${String(error)}`);
      assert.equal(error.code, code, version);
      assert.equal(error.message, 'No note 2; resources/list names every note');
      assert.deepEqual(error.data, { uri: 'note://2' });
      const answer = recorder.fromServer().find((m) => 'error' in m);
      assert.ok(answer, `${version}: the error went on the wire`);
      wireValidator().assertServerMessage(version, answer);
    } finally {
      await close();
    }
  }
});

test('ResourceNotFoundError prints its own name and keeps the URI', () => {
  const error = new ResourceNotFoundError('note://9');
  assert.equal(error.name, 'ResourceNotFoundError');
  assert.equal(error.message, 'Resource not found: note://9');
  assert.equal(error.uri, 'note://9');
  assert.match(String(error), /^ResourceNotFoundError: /);
});
