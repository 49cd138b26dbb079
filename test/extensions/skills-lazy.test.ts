/**
 * The YAML parser that SKILL.md frontmatter needs is loaded on first use, not with
 * `janus-mcp/server` or `janus-mcp/client` (nothing loaded that the first request
 * does not need; it costs tens of milliseconds of cold start): checked in a fresh process.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const SERVER = new URL('../../src/server/index.js', import.meta.url).href;
const CLIENT = new URL('../../src/client/index.js', import.meta.url).href;
const SKILLS = new URL('../../src/extensions/skills/index.js', import.meta.url).href;

test('importing the server, the client and the Skills extension loads no YAML parser; registering a skill from memory does', () => {
  const script = `
    import { createRequire } from 'node:module';
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\\\/]node_modules[\\\\/]yaml[\\\\/]/.test(k));
    const { createServer } = await import(${JSON.stringify(SERVER)});
    const { skills } = await import(${JSON.stringify(SKILLS)});
    await import(${JSON.stringify(CLIENT)});
    const before = loaded();
    const library = skills();
    const server = createServer({ name: 'lazy', version: '1', extensions: [library] });
    server.tool('t', () => 'x');
    const untouched = loaded();
    library.skill('demo', { files: { 'SKILL.md': '---\\nname: demo\\ndescription: A demo\\n---\\nBody\\n' } });
    console.log(JSON.stringify({ before, untouched, after: loaded() }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.deepStrictEqual(JSON.parse(out), { before: false, untouched: false, after: true });
});
