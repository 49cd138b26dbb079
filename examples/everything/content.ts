/** Prompts, resources and completions of the conformance fixture, for the conformance suite's scenarios of each. */
import type { Server } from '../../src/server/index.js';
import { PNG_1X1 } from './media.js';

export function registerContent(server: Server): void {
  server.prompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, () => 'This is a simple prompt for testing.');

  server.prompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      complete: {
        arg1: ({ value }) => ['test', 'testing', 'tested', 'value'].filter((v) => v.startsWith(value)),
        arg2: ({ value }) => ['alpha', 'beta'].filter((v) => v.startsWith(value)),
      },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );

  server.prompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds a resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    ({ resourceUri }) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: resourceUri!, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  );

  server.prompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => [
    { role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
  ]);

  server.resource(
    'test://static-text',
    { name: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' },
    'This is the content of the static text resource.',
  );

  server.resource(
    'test://static-binary',
    { name: 'Static Binary Resource', description: 'A static binary resource (PNG)', mimeType: 'image/png' },
    () => Uint8Array.from(atob(PNG_1X1), (c) => c.charCodeAt(0)),
  );

  server.resource(
    'test://watched-resource',
    { name: 'Watched Resource', description: 'A resource clients can subscribe to', mimeType: 'text/plain' },
    'Watched resource content',
  );

  server.resourceTemplate(
    'test://template/{id}/data',
    {
      name: 'Template Resource',
      description: 'A resource template with an id parameter',
      mimeType: 'application/json',
      complete: { id: ({ value }) => ['123', '456', '789'].filter((v) => v.startsWith(value)) },
    },
    (uri, { id }) => ({ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }),
  );
}
