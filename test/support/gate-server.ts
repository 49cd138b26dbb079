/**
 * A server with every core capability and no extension (a tool, a prompt with a completion, a
 * resource, a template), for the tests that walk the revisions table: whatever it refuses with
 * -32601, it refuses for the table, not for a missing capability.
 */
import { createServer, type Server } from '../../src/server/index.js';

export function createGateServer(): Server {
  const server = createServer({ name: 'gate', version: '1.0.0' });
  server.tool('echo', { input: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => String(text ?? ''));
  server.prompt('greet', { arguments: [{ name: 'who' }], complete: { who: () => ['Ada', 'Alan'] } }, ({ who }) => `Hello, ${who ?? 'you'}`);
  server.resource('gate://static', { name: 'static', mimeType: 'text/plain' }, 'static text');
  server.resourceTemplate('gate://items/{id}', { name: 'item' }, (uri) => uri);
  return server;
}
