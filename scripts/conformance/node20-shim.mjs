// Node 20 loader shim for @modelcontextprotocol/conformance.
//
// The referee CLI does `import { globSync } from "fs"` at top level; `fs.globSync`
// only exists on Node >= 22, so on Node 20 the whole CLI fails to link even though
// only its `tier-check` subcommand ever calls globSync. Load this file with
//
//   node --import ./scripts/conformance/node20-shim.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js ...
//
// It registers a resolve hook (node20-shim-hooks.mjs) that redirects the bare "fs" /
// "node:fs" specifiers, and only when imported from inside the conformance package,
// to node20-fs.mjs (all of node:fs plus a small working globSync). Every other
// import, in every other module, is untouched. On a Node that already has
// fs.globSync this file does nothing.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') {
  register('./node20-shim-hooks.mjs', import.meta.url, {
    data: { fsShimURL: new URL('./node20-fs.mjs', import.meta.url).href },
  });
}
