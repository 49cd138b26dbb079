/** Where the official reference server, @modelcontextprotocol/server-everything, is installed. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The server's entry file, from its package.json `bin`; undefined when the package is not installed. */
export function everythingEntry(): string | undefined {
  try {
    const pkgPath = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: string | Record<string, string> };
    const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]!;
    return join(dirname(pkgPath), bin);
  } catch {
    return undefined;
  }
}
