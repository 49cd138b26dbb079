/** The conformance fixture: every tool, prompt and resource the official referee's server scenarios use. */
import { createServer, type Server } from '../../src/server/index.js';
import { registerContent } from './content.js';
import { registerInputRequired } from './input-required.js';
import { registerTools } from './tools.js';

export function createEverythingServer(): Server {
  const server = createServer({
    name: 'janus-everything',
    version: '0.1.0',
    title: 'Janus MCP everything fixture',
    instructions: 'A fixture server exercising every MCP feature, for conformance tests.',
    // Several instances may sign and verify MRTR state; tests run one, so the default key would do.
    requestState: { secrets: [process.env.JANUS_STATE_SECRET ?? 'janus-everything-fixture'] },
  });
  registerTools(server);
  registerInputRequired(server);
  registerContent(server);
  return server;
}
