/**
 * The first hour of a new user: the README's quick start and docs/getting-started.md followed
 * from an empty folder exactly as written, against the packed package. Every file a page shows
 * is written as shown, every command typed as shown (the tarball stands for `janus-mcp` in
 * `npm install`, and `typescript@5.9.3` for `typescript` on the TypeScript 5 route), and what
 * the commands print is compared with the page. Each page is taken three ways: with tsx, and
 * compiled by `tsc` and run with node under the TypeScript that `npm install typescript` gives
 * today and under TypeScript 5.9.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { installedVersion, packFreshClone, type Packed } from './support.js';
import { fencesOf, stepsOf, walk, type Route } from './walkthrough.js';

const PAGES = [
  { doc: 'README.md', section: 'Quick start' },
  { doc: 'docs/getting-started.md', section: undefined },
];

const TYPESCRIPT_5 = `typescript@${installedVersion('typescript-5')}`;
const ROUTES: Array<{ name: string; route: Route; typescript?: string }> = [
  { name: 'tsx', route: 'tsx' },
  { name: 'tsc and node, TypeScript as npm installs it', route: 'compiled' },
  { name: `tsc and node, ${TYPESCRIPT_5}`, route: 'compiled', typescript: TYPESCRIPT_5 },
];

const work = mkdtempSync(join(tmpdir(), 'janus-mcp-quickstart-'));
let packed: Packed;

before(async () => {
  packed = await packFreshClone(work);
});

after(() => rmSync(work, { recursive: true, force: true }));

/**
 * A server the page starts: a client of each era connects, sees the same tools, and calls the
 * first one with "Ada" for each required string argument (the pages' tools greet or echo it).
 */
async function reach(url: string): Promise<void> {
  const names: string[][] = [];
  for (const era of ['modern', 'legacy'] as const) {
    const client = await connect(url, { era });
    try {
      const { tools } = await client.listTools();
      names.push(tools.map((t) => t.name));
      const [tool] = tools;
      assert.ok(tool, `${url} serves tools`);
      const schema = tool.inputSchema as { required?: string[] };
      const args = Object.fromEntries((schema.required ?? []).map((key) => [key, 'Ada']));
      const result = await client.callTool(tool.name, args);
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      assert.match(text, /Ada/, `${era} era: ${tool.name} answers with the name it was given`);
    } finally {
      await client.close();
    }
  }
  assert.ok(names[0]!.length > 0, `${url} serves tools`);
  assert.deepEqual(names[1], names[0], 'both eras see the same tools');
}

describe('the quick starts, followed from an empty folder', { concurrency: true }, () => {
  test('each page offers both routes, and shows what running them prints', () => {
    for (const { doc, section } of PAGES) {
      const fences = fencesOf(doc, section);
      for (const { route } of ROUTES) {
        const steps = stepsOf(fences, route);
        const runs = steps.filter((s) => s.kind === 'commands' && s.route === route);
        assert.ok(runs.length >= 2, `${doc}: the ${route} route runs the client and the HTTP server`);
        assert.ok(
          runs.every((s) => s.kind === 'commands' && s.output !== undefined),
          `${doc}: every run of the ${route} route shows its output`,
        );
      }
      const files = fences.flatMap((f) => (f.kind === 'file' ? [f.name] : []));
      for (const name of ['tsconfig.json', 'server.ts', 'client.ts', 'http.ts']) assert.ok(files.includes(name), `${doc} shows ${name}`);
    }
  });

  for (const { doc, section } of PAGES) {
    for (const { name, route, typescript } of ROUTES) {
      test(`${doc}: ${name}`, async () => {
        // A folder name npm init accepts as a package name.
        const dir = join(work, `${doc.replace(/\W+/g, '-')}-${route}-${typescript ? 'ts5' : 'latest'}`.toLowerCase());
        const steps = stepsOf(fencesOf(doc, section), route);
        const walked = await walk(dir, steps, { tarball: packed.tarball, typescript, onServer: reach });
        assert.ok(walked.outputs >= 2 && walked.servers >= 1, `${doc}: outputs compared and a server reached`);
        const ts = JSON.parse(readFileSync(join(walked.cwd, 'node_modules', 'typescript', 'package.json'), 'utf8')) as {
          version: string;
        };
        if (typescript) assert.equal(`typescript@${ts.version}`, typescript);
        else assert.ok(Number(ts.version.split('.')[0]) >= 7, `npm install typescript gave ${ts.version}`);
      });
    }
  }
});
