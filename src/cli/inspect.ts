/** `discover TARGET` and `list TARGET [tools|prompts|resources|templates]`: read-only looks at a server. */
import { connect, type Client } from '../client/index.js';
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
    if (values.json) out.stdout(JSON.stringify({ [kind === 'templates' ? 'resourceTemplates' : kind]: listed }, null, 2));
    else out.stdout(listed.length ? tableOf(kind, listed) : `(no ${kind})`);
    return 0;
  } finally {
    await client.close();
  }
}

/** Every page of one list. */
async function everything(client: Client, kind: Kind): Promise<Record<string, unknown>[]> {
  if (kind === 'tools') return (await client.listAllTools()) as unknown as Record<string, unknown>[];
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const params = cursor === undefined ? {} : { cursor };
    const result =
      kind === 'prompts'
        ? await client.listPrompts(params)
        : kind === 'resources'
          ? await client.listResources(params)
          : await client.listResourceTemplates(params);
    const key = kind === 'templates' ? 'resourceTemplates' : kind;
    items.push(...((result as unknown as Record<string, Record<string, unknown>[]>)[key] ?? []));
    cursor = result.nextCursor;
  } while (cursor !== undefined && items.length < 100_000);
  return items;
}

function tableOf(kind: Kind, items: Record<string, unknown>[]): string {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (kind) {
    case 'tools':
      return table(
        ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
        items.map((t) => [text(t.name), argumentSummary(t.inputSchema), oneLine(text(t.description))]),
      );
    case 'prompts':
      return table(
        ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
        items.map((p) => [
          text(p.name),
          ((p.arguments ?? []) as Array<{ name: string; required?: boolean }>).map((a) => (a.required ? a.name : `${a.name}?`)).join(', '),
          oneLine(text(p.description)),
        ]),
      );
    case 'resources':
      return table(
        ['URI', 'NAME', 'MIME TYPE'],
        items.map((r) => [text(r.uri), text(r.name), text(r.mimeType)]),
      );
    case 'templates':
      return table(
        ['URI TEMPLATE', 'NAME', 'MIME TYPE'],
        items.map((r) => [text(r.uriTemplate), text(r.name), text(r.mimeType)]),
      );
  }
}
