// The Janus client on this runtime: connects to URL (at REVISION, when given), lists the tools,
// calls each with good and bad arguments, and prints what it got as one JSON line.
import { connect } from 'janus-mcp/client';

const [url, revision] = globalThis.Deno ? Deno.args : process.argv.slice(2);
const client = await connect(url, revision ? { protocolVersion: revision } : {});
const text = (result) => `${result.isError ? 'error: ' : ''}${result.content.map((c) => c.text).join('')}`;
const report = {
  era: client.era,
  protocolVersion: client.protocolVersion,
  tools: (await client.listTools()).tools.map((t) => t.name).sort(),
  sum: text(await client.callTool('add', { a: 2, b: 3 })),
  badSum: text(await client.callTool('add', { a: 'two', b: 3 })),
  greeting: text(await client.callTool('greet', { name: 'Ada' })),
  badGreeting: text(await client.callTool('greet', {})),
};
await client.close();
console.log(JSON.stringify(report));
