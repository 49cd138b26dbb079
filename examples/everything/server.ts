/** The conformance fixture: every tool, prompt and resource the official referee's server scenarios use. */
import { createServer, type Server } from '../../src/server/index.js';
import type { Cluster } from '../../src/spi/index.js';
import { skills } from '../../src/extensions/skills/index.js';
import { tasks } from '../../src/extensions/tasks/index.js';
import { registerContent } from './content.js';
import { registerInputRequired } from './input-required.js';
import { registerSkills } from './skills.js';
import { registerTasks } from './tasks.js';
import { registerTools } from './tools.js';

/** `cluster`: shared state for several instances behind one URL (main.ts: `REDIS_URL`). */
export function createEverythingServer(options: { cluster?: Cluster } = {}): Server {
  const library = skills();
  const server = createServer({
    name: 'janus-everything',
    version: '0.1.0',
    title: 'Janus MCP everything fixture',
    instructions: 'A fixture server exercising every MCP feature, for conformance tests.',
    requestState: { secrets: stateSecrets() },
    cluster: options.cluster,
    extensions: [tasks(), library],
  });
  registerTools(server);
  registerInputRequired(server);
  registerContent(server);
  registerTasks(server);
  registerSkills(library);
  return server;
}

/**
 * The keys of MRTR `requestState`: `JANUS_STATE_SECRET` ("new,old" while rotating; make one
 * with `openssl rand -base64 32`) when given; else the cluster's shared key (`REDIS_URL`), else
 * a random key of this process. Never a secret written here: anyone who knows it could forge state.
 */
function stateSecrets(): string[] | undefined {
  const secrets = (process.env.JANUS_STATE_SECRET ?? '').split(',').filter((s) => s !== '');
  return secrets.length > 0 ? secrets : undefined;
}
