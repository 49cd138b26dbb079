/** `node dist/examples/quickstart/client.js [target]`: connects to any MCP server and greets. */
import { connect } from '../../src/client/index.js';

const target = process.argv[2] ?? 'node dist/examples/quickstart/stdio.js';
const client = await connect(target, {
  onElicit: async () => ({ action: 'accept', content: { name: 'Ada' } }),
});
console.log(client.era, client.protocolVersion);
console.log((await client.callTool('greet', {})).content);
await client.close();
