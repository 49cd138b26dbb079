/**
 * The proxy is transparent to an upstream's list changes: behind `janus-mcp proxy --port 0 --
 * node <an official SDK v1 stdio server>` (the command, real processes, HTTP on 127.0.0.1), the
 * upstream says its tools, prompts and resources changed while its lists stay the same, and a
 * client of every revision hears each change its own way (a handshake-era session's
 * notification, a 2026-07-28 listen event). The upstream is the official v1 SDK, whose
 * `McpServer` declares roots-asking nowhere: its stderr stays the proxy's own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Client, connect } from '../../src/client/index.js';
import { ALL_VERSIONS as REVISIONS } from '../../src/protocol/index.js';
import { startCli } from '../cli/support.js';
import { fixture } from '../support/common.js';
import { until } from '../support/wait.js';

const CHANGES = ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'];

test('proxy: an upstream list_changed whose lists did not change reaches clients of every revision', { timeout: 60_000 }, async () => {
  const proxy = startCli(['proxy', '--port', '0', '--', process.execPath, fixture('proxy', 'sdk-v1-upstream.js')]);
  const clients: Client[] = [];
  const stop = new AbortController();
  const heard = new Map<string, string[]>();
  const listening: Promise<void>[] = [];
  try {
    const url = await proxy.url();
    for (const revision of REVISIONS) {
      const seen: string[] = [];
      heard.set(revision, seen);
      const client = await connect(url.href, {
        protocolVersion: revision,
        onNotification: (n) => void (n.method.endsWith('/list_changed') && seen.push(n.method)),
      });
      clients.push(client);
      if (client.era === 'modern') {
        // A 2026-07-28 client hears of changes on a listen stream, opened before the change.
        const stream = client.listen(
          { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
          { signal: stop.signal },
        );
        const opened = stream[Symbol.asyncIterator]();
        listening.push(
          (async () => {
            for (let n = await opened.next(); !n.done; n = await opened.next()) seen.push(n.value.method);
          })().catch((e: unknown) => {
            if (!stop.signal.aborted) throw e;
          }),
        );
      }
      assert.deepEqual((await client.listAllTools()).map((t) => t.name).sort(), ['announce', 'echo'], revision);
    }
    // A listen stream is not known to be open before its first event: the upstream announces
    // again until every client has heard (a proxy that diffs hears nothing, however often).
    const everyoneHeard = () => REVISIONS.every((r) => CHANGES.every((m) => heard.get(r)!.includes(m)));
    for (let attempt = 0; !everyoneHeard(); attempt++) {
      assert.ok(attempt < 10, `every client hears every list_changed; heard: ${JSON.stringify(Object.fromEntries(heard))}`);
      assert.equal(((await clients[0]!.callTool('announce', {})).content as Array<{ text: string }>)[0]!.text, 'announced');
      await until(everyoneHeard, 'every list_changed heard by every client', 2000).catch(() => {});
    }
    for (const client of clients) {
      assert.deepEqual((await client.listAllTools()).map((t) => t.name).sort(), ['announce', 'echo'], 'the lists are as they were');
    }
    assert.doesNotMatch(proxy.stderr(), /error|fail/i, 'nothing on stderr but the listening line');
  } finally {
    stop.abort();
    await Promise.all(listening);
    await Promise.all(clients.map((c) => c.close()));
    await proxy.stop();
  }
});
