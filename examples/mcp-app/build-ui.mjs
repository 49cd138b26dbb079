// Bundles the UI's script with esbuild and inlines it into its page, so the UI is one
// self-contained HTML file: hosts render it in a sandbox that may load nothing else.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const page = readFileSync('ui/todo-board.html', 'utf8');
const tag = '<script src="./todo-board.ts"></script>';
if (!page.includes(tag)) throw new Error(`ui/todo-board.html must load its script with ${tag}`);

const bundle = await build({
  entryPoints: ['ui/todo-board.ts'],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
});
const script = bundle.outputFiles[0].text;
// esbuild escapes "</script" in strings; anything left would end the inline script early.
if (/<\/script/i.test(script)) throw new Error('the bundled UI contains "</script": it cannot be inlined');

mkdirSync('dist/ui', { recursive: true });
// A function replacement: the bundle's "$&" or "$1" must stay as they are.
writeFileSync(
  'dist/ui/todo-board.html',
  page.replace(tag, () => `<script>${script}</script>`),
);
console.log(`dist/ui/todo-board.html: ${Math.round((page.length + script.length) / 1024)} KiB`);
