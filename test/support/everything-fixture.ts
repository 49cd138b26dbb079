/** What the everything fixture (test/fixtures/everything) answers, for exact transcripts. */
import { META_SERVER } from './common.js';

export const INFO = { name: 'janus-everything', version: '0.1.0' };
export const TITLE = 'Janus MCP everything fixture';
export const INSTRUCTIONS = 'A fixture server exercising every MCP feature, for conformance tests.';
export const TEXT = 'This is a simple text response for testing.';
export const PROMPT = 'This is a simple prompt for testing.';
export const STATIC = { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' };
export const ALL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** serverInfo in every 2026-07-28 result's `_meta` (basic/index.mdx §Per-response protocol fields). */
export const MODERN_META = { [META_SERVER]: { ...INFO, title: TITLE } };

/** The fixture's capabilities as the revision knows them (`completions` from 2025-03-26). */
export function serverCapabilities(v: string): Record<string, unknown> {
  const caps: Record<string, unknown> = {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    logging: {},
  };
  if (v >= '2025-03-26') caps.completions = {};
  // The fixture's task tools (test/fixtures/everything/tasks.ts): 2025-11-25's core tasks, the 2026 extension.
  if (v === '2025-11-25') caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  if (v >= '2026-07-28') caps.extensions = { ...FIXTURE_EXTENSIONS };
  return caps;
}

/** The extensions the fixture declares on 2026-07-28, with their settings. */
export const FIXTURE_EXTENSIONS: Readonly<Record<string, unknown>> = {
  'io.modelcontextprotocol/tasks': {},
  'io.modelcontextprotocol/skills': { directoryRead: true },
};

/** The initialize result of a handshake revision (`serverInfo.title` from 2025-06-18). */
export function initializeResult(v: string): Record<string, unknown> {
  return {
    protocolVersion: v,
    capabilities: serverCapabilities(v),
    serverInfo: v >= '2025-06-18' ? { ...INFO, title: TITLE } : INFO,
    instructions: INSTRUCTIONS,
  };
}

/** What a client of each revision may declare (schema/<rev> ClientCapabilities). */
export const CLIENT_CAPS: Record<string, Record<string, unknown>> = {
  '2024-11-05': { roots: { listChanged: true }, sampling: {} },
  '2025-03-26': { roots: { listChanged: true }, sampling: {} },
  '2025-06-18': { roots: { listChanged: true }, sampling: {}, elicitation: {} },
  '2025-11-25': { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
};

/** A tool without declared input, as `tools/list` lists it. */
export const SIMPLE_TOOL = {
  name: 'test_simple_text',
  description: 'Returns a simple text response',
  inputSchema: { type: 'object', properties: {} },
};

export const CLIENT = { name: 'janus-e2e', version: '1.0.0' };
