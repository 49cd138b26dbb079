/**
 * Run with `--import ./register.js` and JANUS_TEST_ZOD: registers a tool whose schema mixes
 * a classic `zod/v4` schema (`.describe()`) and a `zod/v4-mini` one (described in the global
 * registry), then prints, as one JSON line: the published input schema, the version of the
 * `zod/v4/core` that converted it, and whether that is the very ES module instance the
 * program imports.
 */
import * as zc from 'zod/v4';
import * as zm from 'zod/v4-mini';
import * as core from 'zod/v4/core';
import { createServer } from '../../../src/server/index.js';
import { loadedZodCore } from '../../../src/server/schema/older-zod.js';
import { MODERN } from '../../support/common.js';
import { MemoryPeer } from '../../support/peer.js';

const server = createServer({ name: 'older-zod', version: '1.0.0' });
server.tool(
  'greet',
  {
    input: zc.object({
      name: zc.string().describe('Who to greet'),
      mood: zm.optional(zm.string().register(zm.globalRegistry, { description: 'How they feel' })),
    }),
  },
  ({ name }) => `hello ${name}`,
);

const peer = await MemoryPeer.connect(server, { revision: MODERN });
const listed = await peer.modern('tools/list');
await peer.close();
server.close();
const loaded = loadedZodCore() as { version?: unknown } | undefined;
console.log(
  JSON.stringify({ inputSchema: listed.result.tools[0].inputSchema, coreVersion: loaded?.version, sameInstance: loaded === core }),
);
