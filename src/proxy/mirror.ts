/**
 * The downstream registry as a mirror of the upstream's lists: tools, prompts, resources and
 * templates are added, updated and removed to match what the upstream lists now. Each change
 * goes through the server's registry, so downstream clients of every era hear of it their own
 * way (`notifications/*_list_changed`, or a `subscriptions/listen` event).
 */
import type { Client } from '../client/index.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/index.js';
import type {
  PromptConfig,
  PromptHandler,
  Registration,
  ResourceConfig,
  ResourceReader,
  Server,
  TemplateConfig,
  TemplateReader,
  ToolConfig,
  ToolHandler,
} from '../server/index.js';

export type ListKind = 'tools' | 'prompts' | 'resources' | 'templates';

export interface Hide {
  tools?: (name: string) => boolean;
  prompts?: (name: string) => boolean;
  resources?: (uri: string) => boolean;
}

/** How a mirrored entry is served: each forwards to the upstream. */
export interface Forwarders {
  tool(name: string): ToolHandler;
  prompt(name: string): PromptHandler;
  resource(uri: string): ResourceReader;
  template(uriTemplate: string): TemplateReader;
}

interface Mirrored {
  registration: Registration<unknown>;
  /** The upstream's entry as JSON: a different one is an update. */
  fingerprint: string;
}

/** Drops undefined members: a registration config holds only what the upstream sent. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export class Mirror {
  private readonly entries: Record<ListKind, Map<string, Mirrored>> = {
    tools: new Map(),
    prompts: new Map(),
    resources: new Map(),
    templates: new Map(),
  };
  /** One sync per kind at a time: a list_changed during a sync runs another after it. */
  private readonly syncing: Partial<Record<ListKind, Promise<void>>> = {};

  constructor(
    private readonly server: Server,
    private readonly forward: Forwarders,
    private readonly hide: Hide,
    private readonly reportError: (e: unknown) => void,
  ) {}

  /** Whether the mirror serves this name or URI (as listed by the upstream, not hidden). */
  has(kind: ListKind, key: string): boolean {
    return this.entries[kind].has(key);
  }

  /** Whether a URI is hidden from downstream clients. */
  hidden(uri: string): boolean {
    return this.hide.resources?.(uri) ?? false;
  }

  syncAll(client: Client): Promise<void> {
    return Promise.all((['tools', 'prompts', 'resources', 'templates'] as const).map((k) => this.sync(k, client))).then(() => {});
  }

  /** Makes one list the upstream's; resolves whether any mirrored entry was added, changed or removed. */
  sync(kind: ListKind, client: Client): Promise<boolean> {
    const previous = this.syncing[kind] ?? Promise.resolve();
    const next = previous.then(() => this.syncNow(kind, client));
    this.syncing[kind] = next.then(
      () => {},
      () => {},
    );
    return next;
  }

  private async syncNow(kind: ListKind, client: Client): Promise<boolean> {
    const caps = client.serverCapabilities;
    switch (kind) {
      case 'tools': {
        const tools = caps.tools ? await client.listAllTools() : [];
        return this.apply(
          kind,
          tools,
          (t) => t.name,
          this.hide.tools,
          (t) => this.registerTool(t),
        );
      }
      case 'prompts': {
        const prompts = caps.prompts ? await everyPage((cursor) => client.listPrompts(cursor ? { cursor } : {}), 'prompts') : [];
        return this.apply(
          kind,
          prompts,
          (p) => p.name,
          this.hide.prompts,
          (p) => this.registerPrompt(p),
        );
      }
      case 'resources': {
        const resources = caps.resources ? await everyPage((cursor) => client.listResources(cursor ? { cursor } : {}), 'resources') : [];
        return this.apply(
          kind,
          resources,
          (r) => r.uri,
          this.hide.resources,
          (r) => this.registerResource(r),
        );
      }
      case 'templates': {
        const templates = caps.resources
          ? await everyPage((cursor) => client.listResourceTemplates(cursor ? { cursor } : {}), 'resourceTemplates')
          : [];
        return this.apply(
          kind,
          templates,
          (t) => t.uriTemplate,
          this.hide.resources,
          (t) => this.registerTemplate(t),
        );
      }
    }
  }

  /** Adds what is new, updates what changed (remove and add again), removes what is gone; says whether anything did. */
  private apply<T>(
    kind: ListKind,
    listed: T[],
    keyOf: (item: T) => string,
    hidden: ((key: string) => boolean) | undefined,
    register: (item: T) => Registration<unknown>,
  ): boolean {
    const map = this.entries[kind];
    const seen = new Set<string>();
    let changed = false;
    for (const item of listed) {
      const key = keyOf(item);
      if (seen.has(key) || hidden?.(key)) continue;
      seen.add(key);
      const fingerprint = JSON.stringify(item);
      const old = map.get(key);
      if (old?.fingerprint === fingerprint) continue;
      changed = true;
      old?.registration.remove();
      map.delete(key);
      try {
        map.set(key, { registration: register(item), fingerprint });
      } catch (e) {
        // An entry this server cannot serve (a tool name or schema it refuses) is left out, and said.
        this.reportError(new Error(`proxy: upstream ${kind} entry ${JSON.stringify(key)} is not mirrored: ${(e as Error).message}`));
      }
    }
    for (const [key, entry] of map) {
      if (seen.has(key)) continue;
      changed = true;
      entry.registration.remove();
      map.delete(key);
    }
    return changed;
  }

  private registerTool(t: Tool): Registration<unknown> {
    // Raw JSON Schema, passed through as the upstream wrote it.
    const config: ToolConfig = defined({
      title: t.title,
      description: t.description,
      input: t.inputSchema as Record<string, unknown>,
      output: t.outputSchema as Record<string, unknown> | undefined,
      annotations: t.annotations,
      icons: t.icons,
      _meta: t._meta,
    });
    return this.server.tool(
      t.name,
      config as ToolConfig<Record<string, unknown>>,
      this.forward.tool(t.name) as never,
    ) as Registration<unknown>;
  }

  private registerPrompt(p: Prompt): Registration<unknown> {
    const config: PromptConfig = defined({
      title: p.title,
      description: p.description,
      arguments: (p.arguments ?? []).map((a) => defined({ name: a.name, description: a.description, required: a.required })),
      icons: p.icons,
      _meta: p._meta,
    });
    return this.server.prompt(p.name, config, this.forward.prompt(p.name) as never) as Registration<unknown>;
  }

  private registerResource(r: Resource): Registration<unknown> {
    const config: ResourceConfig = defined({
      name: r.name,
      title: r.title,
      description: r.description,
      mimeType: r.mimeType,
      size: r.size,
      annotations: r.annotations,
      icons: r.icons,
      _meta: r._meta,
    });
    return this.server.resource(r.uri, config, this.forward.resource(r.uri)) as Registration<unknown>;
  }

  private registerTemplate(t: ResourceTemplate): Registration<unknown> {
    const config: TemplateConfig = defined({
      name: t.name,
      title: t.title,
      description: t.description,
      mimeType: t.mimeType,
      annotations: t.annotations,
      icons: t.icons,
      _meta: t._meta,
    });
    return this.server.resourceTemplate(t.uriTemplate, config, this.forward.template(t.uriTemplate)) as Registration<unknown>;
  }
}

/** Every page of a list, following `nextCursor` (bounded against a server that never stops). */
async function everyPage<K extends string, T>(
  page: (cursor: string | undefined) => Promise<{ nextCursor?: string } & Record<K, T[]>>,
  key: K,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const r = await page(cursor);
    out.push(...r[key]);
    if (!r.nextCursor) return out;
    cursor = r.nextCursor;
  }
  return out;
}
