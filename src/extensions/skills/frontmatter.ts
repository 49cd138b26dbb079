/**
 * SKILL.md frontmatter (SEP-2640 §Skill Format, §Frontmatter): the leading `---` block parsed
 * as YAML into JSON, the Agent Skills naming rules, and the field-by-field comparison a host
 * makes before loading a skill (§Integrity and verification).
 */
import type * as Yaml from 'yaml';
import { JanusError } from '../../protocol/errors.js';
import { requireFrom } from '../../protocol/builtin.js';

/**
 * The YAML parser, loaded on first use, not with `janus-mcp/server` or `janus-mcp/client`: a
 * program that serves or reads no skill never pays its import (tens of milliseconds of cold
 * start). Async paths load it with `import()` (`loadYaml`), which every runtime has; a skill
 * registered synchronously from memory loads it through Node's `require`, reached as
 * `process.getBuiltinModule` (no `node:` import: the server stays runtime-neutral).
 */
let yaml: typeof Yaml | undefined;

export async function loadYaml(): Promise<void> {
  yaml ??= await import('yaml');
}

function yamlNow(): typeof Yaml {
  if (yaml !== undefined) return yaml;
  const require = requireFrom(import.meta.url);
  if (require === undefined) {
    throw new JanusError(
      'REGISTRATION',
      'SKILL.md frontmatter needs the YAML parser, which this runtime cannot load synchronously: `await prepareSkills()` (janus-mcp/server) before registering skills from memory',
    );
  }
  yaml = require('yaml') as typeof Yaml;
  return yaml;
}

/** A leading `---` line, the YAML, a closing `---` line (an optional BOM before it all). */
const BLOCK = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

/** Agent Skills `name`: 1-64 of a-z, 0-9 and `-`, no leading, trailing or doubled hyphen. */
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export function isSkillName(name: string): boolean {
  return SKILL_NAME.test(name);
}

export type FrontmatterResult = { ok: true; frontmatter: Record<string, unknown> } | { ok: false; problem: string };

/**
 * The frontmatter of a SKILL.md as a JSON object, or why there is none. YAML 1.2 core schema:
 * no timestamps or other non-JSON types; anything JSON cannot carry (`.inf`) is refused.
 */
export function parseFrontmatter(text: string): FrontmatterResult {
  const block = BLOCK.exec(text);
  if (!block) return { ok: false, problem: 'it does not begin with a --- delimited YAML frontmatter block' };
  const doc = yamlNow().parseDocument(block[1] ?? '', { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) return { ok: false, problem: `its frontmatter is not valid YAML: ${doc.errors[0]!.message}` };
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'its frontmatter is not a YAML mapping' };
  }
  const problem = notJson(value, 'frontmatter');
  if (problem) return { ok: false, problem: `its frontmatter cannot be sent as JSON: ${problem}` };
  return { ok: true, frontmatter: value as Record<string, unknown> };
}

/** The first value JSON cannot carry as it is, or undefined. */
function notJson(value: unknown, at: string): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${at} is ${value}`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = notJson(value[i], `${at}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      const p = notJson(v, `${at}.${k}`);
      if (p) return p;
    }
    return undefined;
  }
  return `${at} is not a JSON value`;
}

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** The top-level fields where two frontmatters differ (SEP-2640: compared field by field), sorted. */
export function frontmatterDifferences(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const fields = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...fields].filter((f) => !(Object.hasOwn(a, f) && Object.hasOwn(b, f) && jsonEqual(a[f], b[f]))).sort();
}
