/**
 * examples/mcp-app as a user builds and runs it: the packed package installed with npm, the
 * example built and started as its README says, then its UI rendered by a host page in real
 * headless Chromium through the official ext-apps AppBridge. The UI must render the call the
 * host sends, call the server's tools through the host, and render what comes back.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { appsExtension, type Client, connect, visibleToModel } from '../../src/client/index.js';
import { packFreshClone, root, run } from '../package/support.js';
import { type ExampleServer, type HostServer, hostPage, launchChromium, serveHost, startExample } from './mcp-app-support.js';

const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

interface Board {
  list: string;
  items: Array<{ id: number; text: string; done: boolean }>;
}

test("examples/mcp-app: the UI renders the host's call and calls its tools through the AppBridge", { timeout: 480_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'janus-mcp-app-'));
  let server: ExampleServer | undefined;
  let host: HostServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let client: Client | undefined;
  const pageLog: string[] = [];
  let passed = false;
  // Where the minutes go (packing builds the whole repository), for whoever has to speed it up.
  let since = performance.now();
  const lap = (phase: string) => {
    t.diagnostic(`${phase}: ${((performance.now() - since) / 1000).toFixed(1)} s`);
    since = performance.now();
  };
  try {
    // The example as a user gets it, with the package this checkout packs.
    browser = await launchChromium(); // first: a missing browser fails in a second, not after the install
    const { tarball } = await packFreshClone(work);
    lap('chromium and npm pack');
    const project = join(work, 'mcp-app');
    cpSync(join(root, 'examples/mcp-app'), project, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) });
    // The commands run here are the README's.
    const readme = readFileSync(join(project, 'README.md'), 'utf8');
    for (const command of ['npm install', 'npm run build', 'npm start'])
      assert.ok(readme.includes(`\n${command}`), `the README runs ${command}`);
    const scripts = (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.equal(scripts.start, 'node dist/server.js', 'startExample runs what npm start runs');
    await run('npm', ['install', '--prefer-offline', '--no-package-lock', '--loglevel=error', tarball], { cwd: project, env: npmEnv });
    lap('npm install');
    await run('npm', ['run', 'build'], { cwd: project, env: npmEnv });
    lap('npm run build');
    server = await startExample(project);

    // The Janus client: the UI link and who may see each tool, and an item before the UI opens.
    client = await connect(server.url, { extensions: { ...appsExtension() } });
    const tools = await client.listAllTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual(client.appOf(byName.get('show_todos')!), { resourceUri: 'ui://todos/board.html', visibility: ['model', 'app'] });
    assert.equal(visibleToModel(byName.get('add_todo')!), true);
    assert.equal(visibleToModel(byName.get('toggle_todo')!), false, 'toggle_todo is for the UI only');
    const app = await client.readApp('show_todos');
    assert.equal(app.mimeType, 'text/html;profile=mcp-app');
    assert.doesNotMatch(app.html, /<script[^>]*\ssrc=/i, 'the UI is one self-contained page');
    await client.callTool('add_todo', { list: 'groceries', text: 'Milk' });

    // The host page opens the board for show_todos({ list: 'groceries' }).
    host = await serveHost(await hostPage(), server.url);
    page = await browser.newPage();
    page.on('console', (m) => pageLog.push(`console.${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => pageLog.push(`pageerror: ${e.message}`));
    await page.goto(`${host.origin}/?tool=show_todos&args=${encodeURIComponent(JSON.stringify({ list: 'groceries' }))}`);
    const board = page.frameLocator('iframe');
    const item = (text: string) => board.locator('li', { hasText: text });
    const wait = { timeout: 60_000 };

    // The call's arguments and result, as the host sent them.
    await board.locator('h1', { hasText: 'groceries' }).waitFor(wait);
    await item('Milk').waitFor(wait);
    assert.equal(await board.locator('#count').textContent(), '1 of 1 open');

    // The UI's own calls: add_todo from the form, toggle_todo from a checkbox.
    await board.locator('#text').fill('Bread');
    await board.getByRole('button', { name: 'Add' }).click();
    await item('Bread').waitFor(wait);
    assert.equal(await board.locator('#text').inputValue(), '', 'the field is cleared once the item is added');
    // A tool error comes back through the host too, and the board says what was wrong.
    await board.locator('#text').fill('   ');
    await board.getByRole('button', { name: 'Add' }).click();
    await board.locator('#status.error').waitFor(wait);
    assert.match((await board.locator('#status').textContent()) ?? '', /add_todo/);
    assert.equal(await board.locator('li').count(), 2);
    await item('Milk').locator('input[type=checkbox]').check();
    await board.locator('li.done', { hasText: 'Milk' }).waitFor(wait);
    assert.equal(await board.locator('#status').textContent(), '', 'a result clears the error');
    assert.equal(await board.locator('#count').textContent(), '1 of 2 open');

    // The calls went UI → AppBridge → the host's MCP client → the server.
    const report = (await page.evaluate('window.host')) as { events: string[]; error?: string };
    assert.equal(report.error, undefined);
    for (const event of ['initialized', 'called show_todos', 'tools/call add_todo', 'tools/call toggle_todo']) {
      assert.ok(report.events.includes(event), `the host saw ${event}: ${report.events.join(', ')}`);
    }
    for (const call of ['tools/call add_todo', 'tools/call toggle_todo']) {
      assert.ok(host.requests.includes(call), `the page sent ${call} to the server: ${host.requests.join(', ')}`);
    }
    const after = await client.callTool('show_todos', { list: 'groceries' });
    const { items } = after.structuredContent as Board;
    assert.deepEqual(
      items.map(({ text, done }) => ({ text, done })),
      [
        { text: 'Milk', done: true },
        { text: 'Bread', done: false },
      ],
    );
    lap('server and browser');
    passed = true;
  } catch (error) {
    let shot = '';
    if (page !== undefined) {
      const file = join(work, 'mcp-app-failure.png');
      shot = await page.screenshot({ path: file, fullPage: true }).then(
        () => `\nscreenshot: ${file}`,
        () => '',
      );
      const report = await page.evaluate('window.host').catch(() => undefined);
      shot += `\nhost report: ${JSON.stringify(report)}`;
    }
    const context = `${shot}\npage:\n${pageLog.join('\n')}\nexample server stderr:\n${server?.stderr() ?? ''}\nrequests to /mcp: ${host?.requests.join(', ')}`;
    throw new Error(`${error instanceof Error ? error.message : String(error)}${context}`, { cause: error });
  } finally {
    await browser?.close();
    await client?.close();
    await host?.close();
    await server?.stop();
    if (passed) rmSync(work, { recursive: true, force: true });
  }
});
