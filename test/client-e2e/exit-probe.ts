/**
 * Child process of sessions.test.ts (not a test file): connects to the URL in argv over one
 * wire (`legacy` Streamable HTTP session, `modern`, or `sse` = the 2024-11-05 HTTP+SSE
 * channel), does a little of everything that opens streams or timers, closes, prints
 * `closed <ms>`, and then must exit by itself: nothing may keep the event loop alive.
 */
import { connect } from '../../src/client/index.js';
import { LegacySseChannel } from '../../src/client/legacy/sse-channel.js';

const [url, mode] = process.argv.slice(2);
if (url && mode) {
  const target = mode === 'sse' ? new LegacySseChannel(new URL(url)) : url;
  const client = await connect(target, {
    ...(mode === 'legacy' ? { protocolVersion: '2025-11-25' as const } : mode === 'sse' ? { protocolVersion: '2024-11-05' as const } : {}),
    onElicit: () => ({ action: 'accept', content: { name: 'Ada' } }),
    onSample: () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }),
    onRoots: () => [{ uri: 'file:///w' }],
    timeoutMs: 5000,
  });
  const stream = client.listen({ toolsListChanged: true });
  await client.listTools();
  await client.callTool('ask', { sample: true, roots: true });
  await client.callTool('slow', { steps: 2, delayMs: 5 }, { onProgress: () => {} });
  // A call still in flight when close() comes must not keep anything alive either.
  const pending = client.callTool('block').catch(() => 'rejected');
  await new Promise((r) => setTimeout(r, 30));
  await client.close();
  process.stdout.write(`closed ${Date.now()} ${mode} ${await pending} ${JSON.stringify(await stream.next())}\n`);
}
