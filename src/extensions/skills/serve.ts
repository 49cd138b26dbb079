/**
 * The Skills extension on the server (SEP-2640): `skills/list`, `skills/get` and
 * `resources/directory/read` on the extension seam (src/server/extension.ts), and every skill
 * file as an ordinary resource (`skill://<skill-path>/<file-path>`) through the server's
 * registry, so `resources/list` and `resources/read` serve them as any other.
 *
 * The methods exist where `capabilities.extensions` does (2026-07-28): a handshake-era client
 * cannot learn that the extension is there, and reads the files as plain resources.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import { revision } from '../../protocol/revisions.js';
import type { Resource, ResourceContents, ServerCapabilities } from '../../protocol/types.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import type { CallSite, ExtensionHost, ExtensionMethod, ExtensionServer, Params, ServerExtension } from '../../server/extension.js';
import { ResourceNotFoundError } from '../../protocol/errors.js';
import type { CacheHint, ResourceConfig } from '../../server/features/resources.js';
import { bytesToBase64 } from '../../protocol/base64.js';
import { findSkillPaths, readSkillDirectory } from './disk.js';
import { indexDirectories, type DirectoryIndex } from './directory.js';
import { loadYaml } from './frontmatter.js';
import { pageOf } from './paging.js';
import { buildSkill, type BuiltSkill, type SkillFile, type SkillFiles } from './skill.js';
import { SKILL_SCHEME, SKILLS_EXTENSION } from './wire.js';

/** How the Skills extension pages and caches its lists. */
export interface SkillsOptions {
  /** Page size of `skills/list` and `resources/directory/read` (default: everything on one page). */
  pageSize?: number;
  /** The 2026-07-28 cache hint of `skills/list` and `skills/get` results (default `{ ttlMs: 0, scope: 'private' }`). */
  cache?: CacheHint;
}

/** A registered skill; changing or removing it updates its resources and entry. */
export interface SkillRegistration {
  /** The skill path (`acme/billing/refunds`). */
  readonly path: string;
  /** The URI of its SKILL.md (`skill://acme/billing/refunds/SKILL.md`). */
  readonly uri: string;
  /** Replaces its files (validated as on registration; on error nothing changes). */
  update(source: SkillFiles): void;
  /** Stops serving the skill and the files no other skill holds (clients are told the resource list changed). */
  remove(): void;
}

/** One served file URI: the bytes it serves, the skills that hold it (nested skills share files), its resource. */
interface ServedFile {
  file: SkillFile;
  readonly holders: Set<BuiltSkill>;
  readonly resource: ReturnType<ExtensionServer['resource']>;
  config: ResourceConfig;
}

const DEFAULT_CACHE: CacheHint = { ttlMs: 0, scope: 'private' };
/** Where `capabilities.extensions` exists, and so where a client can learn of the extension. */
const advertised = (v: ProtocolVersion) => revision(v).capabilities.server.has('extensions');

/**
 * The Skills extension ({@link skills} makes one): serves skills (a SKILL.md and its files) from
 * memory or from directories, as `skill://` resources and through the extension's `skills/list`
 * and `skills/get`.
 */
export class SkillsExtension implements ServerExtension {
  readonly id = SKILLS_EXTENSION;
  readonly methods: Readonly<Record<string, ExtensionMethod>>;
  /** Skills by the URI of their SKILL.md. */
  private readonly byUri = new Map<string, BuiltSkill>();
  private readonly files = new Map<string, ServedFile>();
  private index: DirectoryIndex | undefined;

  /** The server it was added to (its skills' files are that server's resources). */
  private server: ExtensionServer | undefined;

  constructor(private readonly options: SkillsOptions = {}) {
    const ps = options.pageSize;
    if (ps !== undefined && (!Number.isInteger(ps) || ps < 1))
      throw new JanusError('REGISTRATION', 'skills: pageSize must be a positive integer');
    this.methods = {
      'skills/list': { revisions: advertised, run: (params, _ctx, site) => this.list(params, site) },
      'skills/get': { revisions: advertised, run: (params, _ctx, site) => this.get(params, site) },
      'resources/directory/read': { revisions: advertised, run: (params) => this.readDirectory(params) },
    };
  }

  install(host: ExtensionHost): void {
    if (this.server !== undefined) throw new JanusError('REGISTRATION', 'a skills() extension serves one server: make one per server');
    this.server = host.server;
  }

  private get host(): ExtensionServer {
    if (this.server === undefined) {
      throw new JanusError('REGISTRATION', 'add the skills extension to a server first: createServer({ extensions: [skills] })');
    }
    return this.server;
  }

  /** SEP-2640 §Capability Declaration: every served skill's directories are readable. */
  settings(): Record<string, unknown> {
    return { directoryRead: true };
  }

  /** Skill files are read through `resources/read`: a server declaring the extension declares resources, skills or not. */
  capabilities(_v: ProtocolVersion, caps: ServerCapabilities): void {
    caps.resources ??= { subscribe: true, listChanged: true };
  }

  /**
   * Serves a skill at a skill path (`git-workflow`, `acme/billing/refunds`): its files become
   * resources `skill://<path>/<file>`, and `skills/list`, `skills/get` and
   * `resources/directory/read` answer for it. From memory it is served at once; from a
   * directory on disk once the returned promise resolves. A skill that breaks SEP-2640's rules
   * (no SKILL.md with `name` and `description`, `name` not the final path segment, over the
   * limits) is refused with a `REGISTRATION` error.
   */
  skill(path: string, source: SkillFiles): SkillRegistration;
  skill(path: string, directory: string): Promise<SkillRegistration>;
  skill(path: string, source: SkillFiles | string): SkillRegistration | Promise<SkillRegistration> {
    if (typeof source !== 'string') return this.add(path, source);
    return Promise.all([readSkillDirectory(source), loadYaml()]).then(([files]) => this.add(path, files));
  }

  /**
   * Serves every skill under `root` (each directory holding a SKILL.md, at its relative path),
   * all or none: the first that fails undoes the others and its error is thrown.
   */
  async skills(root: string): Promise<SkillRegistration[]> {
    const [paths] = await Promise.all([findSkillPaths(root), loadYaml()]);
    const sources = await Promise.all(paths.map(async (p) => ({ path: p, files: await readSkillDirectory(`${root}/${p}`) })));
    const served: SkillRegistration[] = [];
    try {
      for (const { path, files } of sources) served.push(this.add(path, files));
    } catch (e) {
      for (const s of served) s.remove();
      throw e instanceof JanusError ? new JanusError('REGISTRATION', `skills under ${root}: ${e.message}`, { cause: e }) : e;
    }
    return served;
  }

  /** Serves a skill from its files; throws a `REGISTRATION` error, serving nothing, when it breaks a rule. */
  add(path: string, source: SkillFiles): SkillRegistration {
    let current: BuiltSkill | undefined = buildSkill(path, source);
    this.transition(undefined, current);
    const uri = current.uri;
    return {
      path,
      uri,
      update: (next) => {
        if (current === undefined) throw new JanusError('REGISTRATION', `skill "${path}" was removed`);
        const built = buildSkill(path, next);
        this.transition(current, built);
        current = built;
      },
      remove: () => {
        if (current === undefined) return;
        this.transition(current, undefined);
        current = undefined;
      },
    };
  }

  private async list(params: Params, site: CallSite): Promise<object> {
    const sorted = [...this.byUri.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1));
    // Paged by skill: an entry is never split across pages (SEP-2640 §Enumeration).
    const { page, nextCursor } = pageOf(sorted, params.cursor, this.options.pageSize);
    const skills = await Promise.all(page.map((s) => s.entry()));
    return this.cacheable(site, nextCursor === undefined ? { skills } : { skills, nextCursor });
  }

  private async get(params: Params, site: CallSite): Promise<object> {
    const uri = params.uri;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'skills/get needs params.uri, the URI of a SKILL.md');
    const skill = this.byUri.get(uri);
    // SEP-2640 §Retrieval via skills/get: -32602 for a URI that names no skill served here.
    if (skill === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown skill: ${uri}`);
    return this.cacheable(site, { skill: await skill.entry() });
  }

  private readDirectory(params: Params): object {
    const uri = params.uri;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'resources/directory/read needs params.uri');
    this.index ??= indexDirectories(
      SKILL_SCHEME,
      [...this.files.entries()].map(([u, f]) => ({ ...resourceOf(f.config), uri: u })),
    );
    const children = this.index.get(uri);
    // SEP-2640 §resources/directory/read: -32602 for an unknown URI and for one that is not a directory.
    if (children === undefined) {
      const why = this.files.has(uri) ? 'is a file, not a directory' : 'is not a directory served here';
      throw new McpError(ErrorCode.InvalidParams, `${uri} ${why}`);
    }
    const { page, nextCursor } = pageOf(children, params.cursor, this.options.pageSize);
    return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor };
  }

  /** 2026-07-28 results carry the list-caching attributes (SEP-2640 §Enumeration, SEP-2549). */
  private cacheable(site: CallSite, result: Record<string, unknown>): object {
    if (site.era !== 'modern') return result;
    const hint = this.options.cache ?? DEFAULT_CACHE;
    return { ...result, ttlMs: hint.ttlMs, cacheScope: hint.scope };
  }

  /**
   * Replaces `old` by `next` (either may be absent) in one step: checked first (a file URI
   * another skill serves with other bytes, a skill URI taken), then new resources registered
   * (undone if one fails), then the rest changed.
   */
  private transition(old: BuiltSkill | undefined, next: BuiltSkill | undefined): void {
    if (next !== undefined) {
      const taken = this.byUri.get(next.uri);
      if (taken !== undefined && taken !== old) throw new JanusError('REGISTRATION', `skill "${next.path}" is already registered`);
      for (const f of next.files) {
        const served = this.files.get(f.uri);
        const others = served ? [...served.holders].filter((h) => h !== old) : [];
        if (others.length > 0 && !sameBytes(served!.file.bytes, f.bytes)) {
          throw new JanusError('REGISTRATION', `skill "${next.path}": ${f.uri} is served by skill "${others[0]!.path}" with other content`);
        }
      }
    }
    const added: string[] = [];
    try {
      for (const f of next?.files ?? []) {
        if (this.files.has(f.uri)) continue;
        const config = fileConfig(f, undefined);
        const resource = this.host.resource(f.uri, config, (uri) => this.contents(uri));
        this.files.set(f.uri, { file: f, holders: new Set(), resource, config });
        added.push(f.uri);
      }
    } catch (e) {
      for (const uri of added) {
        this.files.get(uri)?.resource.remove();
        this.files.delete(uri);
      }
      throw e;
    }
    const touched = new Set<string>();
    if (old !== undefined) {
      this.byUri.delete(old.uri);
      for (const f of old.files) {
        this.files.get(f.uri)?.holders.delete(old);
        touched.add(f.uri);
      }
    }
    if (next !== undefined) {
      this.byUri.set(next.uri, next);
      for (const f of next.files) {
        const served = this.files.get(f.uri)!;
        served.holders.add(next);
        const changed = !added.includes(f.uri) && !sameBytes(served.file.bytes, f.bytes);
        served.file = f;
        if (changed) this.host.resourceUpdated(f.uri);
        touched.add(f.uri);
      }
    }
    for (const uri of touched) this.settle(uri);
    this.index = undefined;
  }

  /** A touched URI: dropped when no skill holds it, else its metadata brought up to date. */
  private settle(uri: string): void {
    const served = this.files.get(uri)!;
    if (served.holders.size === 0) {
      served.resource.remove();
      this.files.delete(uri);
      return;
    }
    const config = fileConfig(served.file, this.byUri.get(uri));
    if (JSON.stringify(config) !== JSON.stringify(served.config)) {
      served.resource.update(config);
      served.config = config;
    }
  }

  /** `resources/read` of a skill file: its bytes as they are now, as text or a base64 blob. */
  private contents(uri: string): ResourceContents {
    const served = this.files.get(uri);
    // Removed between lookup and read: not found, in the code of the session's era.
    if (served === undefined) throw new ResourceNotFoundError(uri);
    const { file } = served;
    return file.text !== undefined
      ? { uri, mimeType: file.mimeType, text: file.text }
      : { uri, mimeType: file.mimeType, blob: bytesToBase64(file.bytes) };
  }
}

/**
 * A file's resource metadata (SEP-2640 §Resource Metadata): a skill's SKILL.md is named and
 * described from its frontmatter, as text/markdown; any other file by its name.
 */
function fileConfig(file: SkillFile, skill: BuiltSkill | undefined): ResourceConfig {
  const size = file.bytes.byteLength;
  if (skill !== undefined) {
    return { name: skill.frontmatter.name, description: skill.frontmatter.description, mimeType: 'text/markdown', size };
  }
  // description: undefined, so that an update from a SKILL.md's metadata (a nested skill removed) drops it.
  return { name: file.path.slice(file.path.lastIndexOf('/') + 1), description: undefined, mimeType: file.mimeType, size };
}

function resourceOf(config: ResourceConfig): Omit<Resource, 'uri'> {
  const r: Omit<Resource, 'uri'> = { name: config.name, mimeType: config.mimeType, size: config.size };
  if (config.description !== undefined) r.description = config.description;
  return r;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
