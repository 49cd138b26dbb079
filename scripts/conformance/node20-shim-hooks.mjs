// Module resolve hook registered by node20-shim.mjs (runs on the loader thread).
// Redirects "fs" / "node:fs" imported by @modelcontextprotocol/conformance to the
// node20-fs.mjs shim; everything else resolves normally.
let fsShimURL;

export function initialize(data) {
  fsShimURL = data.fsShimURL;
}

const FS_SPECIFIERS = new Set(['fs', 'node:fs']);
const FROM_CONFORMANCE = /\/node_modules\/@modelcontextprotocol\/conformance\//;

export async function resolve(specifier, context, nextResolve) {
  if (FS_SPECIFIERS.has(specifier) && context.parentURL !== undefined && FROM_CONFORMANCE.test(context.parentURL)) {
    return { url: fsShimURL, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
