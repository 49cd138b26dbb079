/**
 * The MCP server: tools that list, read and search files, only inside the client's roots
 * (roots.ts says how the roots are learnt in each era; paths.ts how a path is judged).
 */
import { lstat, opendir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolError } from 'janus-mcp/errors';
import { createServer, type Server } from 'janus-mcp/server';
import { z } from 'zod';
import { isInside, resolveInRoots } from './paths.js';
import { allowedRoots, refreshRootsOnChange } from './roots.js';

const MAX_READ_BYTES = 1024 * 1024;
const MAX_MATCHES = 200;

type EntryKind = 'file' | 'directory' | 'symlink' | 'other';
const entryKind = (s: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryKind =>
  s.isSymbolicLink() ? 'symlink' : s.isDirectory() ? 'directory' : s.isFile() ? 'file' : 'other';

export function createFilesServer(): Server {
  const server = createServer({
    name: 'filesystem-roots',
    version: '1.0.0',
    instructions: 'Files are reachable only inside the roots the client shares; list_roots names them.',
    sessions: { onRootsChanged: refreshRootsOnChange },
  });

  server.tool(
    'list_roots',
    {
      description: 'The folders this server may read: the roots the client shared',
      output: z.object({ roots: z.array(z.object({ path: z.string(), name: z.string().optional() })) }),
      annotations: { readOnlyHint: true },
    },
    async (_args, ctx) => ({ roots: await allowedRoots(ctx) }),
  );

  server.tool(
    'list_directory',
    {
      description: 'The entries of a folder inside the roots',
      input: z.object({ path: z.string().describe('An absolute path, a file:// URI, or a path relative to the first root') }),
      output: z.object({
        path: z.string(),
        entries: z.array(
          z.object({ name: z.string(), kind: z.enum(['file', 'directory', 'symlink', 'other']), size: z.number().optional() }),
        ),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ path }, ctx) => {
      const real = await resolveInRoots(await allowedRoots(ctx), path);
      if (!(await stat(real)).isDirectory()) throw new ToolError(`${path} is a file, not a folder; read it with read_file.`);
      const entries = [];
      for await (const entry of await opendir(real)) {
        const info = await lstat(join(real, entry.name));
        entries.push({ name: entry.name, kind: entryKind(info), ...(info.isFile() ? { size: info.size } : {}) });
      }
      entries.sort((a, b) => a.name.localeCompare(b.name));
      return { path: real, entries };
    },
  );

  server.tool(
    'read_file',
    {
      description: `The text of a file inside the roots (UTF-8, at most ${MAX_READ_BYTES} bytes)`,
      input: z.object({ path: z.string().describe('An absolute path, a file:// URI, or a path relative to the first root') }),
      annotations: { readOnlyHint: true },
    },
    async ({ path }, ctx) => {
      const real = await resolveInRoots(await allowedRoots(ctx), path);
      const info = await stat(real);
      if (info.isDirectory()) throw new ToolError(`${path} is a folder; list it with list_directory.`);
      if (info.size > MAX_READ_BYTES)
        throw new ToolError(`${path} has ${info.size} bytes, more than the ${MAX_READ_BYTES} this tool reads.`);
      const bytes = await readFile(real);
      if (bytes.includes(0)) throw new ToolError(`${path} is not a text file.`);
      return bytes.toString('utf8');
    },
  );

  server.tool(
    'search_files',
    {
      description: `Files and folders whose name contains the query (case-insensitive), below a folder or every root; at most ${MAX_MATCHES}`,
      input: z.object({
        query: z.string().min(1),
        path: z.string().optional().describe('Where to start (default: every root)'),
      }),
      output: z.object({ matches: z.array(z.string()), truncated: z.boolean() }),
      annotations: { readOnlyHint: true },
    },
    async ({ query, path }, ctx) => {
      const roots = await allowedRoots(ctx);
      const starts = path === undefined ? roots.map((r) => r.path) : [await resolveInRoots(roots, path)];
      const needle = query.toLowerCase();
      const matches: string[] = [];
      // Symlinks are not followed: a link inside a root may point anywhere.
      const walk = async (dir: string): Promise<void> => {
        for await (const entry of await opendir(dir)) {
          if (matches.length > MAX_MATCHES || ctx.signal.aborted) return;
          const full = join(dir, entry.name);
          if (entry.name.toLowerCase().includes(needle)) matches.push(full);
          if (entry.isDirectory()) await walk(full);
        }
      };
      for (const start of starts) {
        if (roots.some((root) => isInside(root.path, start))) await walk(start);
      }
      return { matches: matches.slice(0, MAX_MATCHES).sort(), truncated: matches.length > MAX_MATCHES };
    },
  );

  return server;
}
