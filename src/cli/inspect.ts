/** `discover TARGET` and `list TARGET [tools|prompts|resources|templates]`: read-only looks at a server. */
import { connect, type Client } from '../client/index.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/index.js';
import { CONNECT_OPTIONS, UsageError, connectOptions, parseVerb, target } from './args.js';
import { argumentSummary, describeText, description, oneLine, table } from './format.js';
import type { Output } from './output.js';

export async function discoverVerb(args: string[], out: Output): Promise<number> {
  const { values, positionals } = parseVerb('discover', args, CONNECT_OPTIONS);
  if (values.help) return out.help('discover');
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`, 'discover');
  const client = await connect(target('discover', positionals), connectOptions('discover', values));
  try {
    const found = await description(client);
    out.stdout(values.json ? JSON.stringify(found, null, 2) : describeText(found));
    return 0;
  } finally {
    await client.close();
  }
}

const KINDS = ['tools', 'prompts', 'resources', 'templates'] as const;
type Kind = (typeof KINDS)[number];

export async function listVerb(args: string[], out: Output): Promise<number> {
  const { values, positionals } = parseVerb('list', args, CONNECT_OPTIONS);
  if (values.help) return out.help('list');
  const kind = (positionals[1] ?? 'tools') as Kind;
  if (!KINDS.includes(kind)) throw new UsageError(`list what? "${kind}" is not one of ${KINDS.join(', ')}`, 'list');
  if (positionals.length > 2) throw new UsageError(`unexpected argument "${positionals[2]}"`, 'list');
  const client = await connect(target('list', positionals), connectOptions('list', values));
  try {
    const listed = await everything(client, kind);
    // --json: the wire result's shape (`resourceTemplates` for templates), every page joined.
    if (values.json) out.stdout(JSON.stringify({ [kind === 'templates' ? 'resourceTemplates' : kind]: listed.items }, null, 2));
    else out.stdout(listed.items.length ? tableOf(listed) : `(no ${kind})`);
    return 0;
  } finally {
    await client.close();
  }
}

/** One list, every page joined, with what its items are. */
type Listed =
  | { readonly kind: 'tools'; readonly items: Tool[] }
  | { readonly kind: 'prompts'; readonly items: Prompt[] }
  | { readonly kind: 'resources'; readonly items: Resource[] }
  | { readonly kind: 'templates'; readonly items: ResourceTemplate[] };

/** Every page of one list. */
async function everything(client: Client, kind: Kind): Promise<Listed> {
  switch (kind) {
    case 'tools':
      return { kind, items: await client.listAllTools() };
    case 'prompts':
      return { kind, items: await allPages('prompts', (params) => client.listPrompts(params)) };
    case 'resources':
      return { kind, items: await allPages('resources', (params) => client.listResources(params)) };
    case 'templates':
      return { kind, items: await allPages('resourceTemplates', (params) => client.listResourceTemplates(params)) };
  }
}

/** The items under `key` of every page, following `nextCursor` (up to 100,000 items); a page without them adds none. */
async function allPages<K extends string, T>(
  key: K,
  page: (params: { cursor?: string }) => Promise<{ readonly [k in K]?: readonly T[] } & { readonly nextCursor?: string }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const params = cursor === undefined ? {} : { cursor };
    const result = await page(params);
    items.push(...(result[key] ?? []));
    cursor = result.nextCursor;
  } while (cursor !== undefined && items.length < 100_000);
  return items;
}

/** The list as a table. The values are as the server sent them, so each is checked before it is printed. */
function tableOf(listed: Listed): string {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (listed.kind) {
    case 'tools':
      return table(
        ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
        listed.items.map((t) => [text(t.name), argumentSummary(t.inputSchema), oneLine(text(t.description))]),
      );
    case 'prompts':
      return table(
        ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
        listed.items.map((p) => [
          text(p.name),
          (p.arguments ?? []).map((a) => (a.required ? a.name : `${a.name}?`)).join(', '),
          oneLine(text(p.description)),
        ]),
      );
    case 'resources':
      return table(
        ['URI', 'NAME', 'MIME TYPE'],
        listed.items.map((r) => [text(r.uri), text(r.name), text(r.mimeType)]),
      );
    case 'templates':
      return table(
        ['URI TEMPLATE', 'NAME', 'MIME TYPE'],
        listed.items.map((r) => [text(r.uriTemplate), text(r.name), text(r.mimeType)]),
      );
  }
}
