/**
 * Shared pieces of the skills tests: a skill's files, the digest the tests compute on their
 * own (node:crypto, not the library's), and a server/client pair in memory. Not a test file.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerOptions } from '../../src/server/index.js';
import { skills, type SkillsExtension, type SkillsOptions } from '../../src/extensions/skills/index.js';
import type { ConnectOptions } from '../../src/client/index.js';
import { inMemory } from '../client/helpers.js';

export const PDF_MD = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  version: "2.1.0"
---

# PDF processing

See references/FORMS.md.
`;

export const PDF_FILES = {
  'SKILL.md': PDF_MD,
  'references/FORMS.md': '# Forms\n',
  'templates/invoice.md': '# Invoice\n',
  'templates/regional/eu-invoice.md': '# EU invoice\n',
  'assets/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]),
};

export const skillMd = (name: string, description = `The ${name} skill`, extra = '') =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\nBody of ${name}.\n`;

/** `sha256:<hex>` of raw bytes, computed independently of the library. */
export function digestOf(content: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

export function sizeOf(content: string | Uint8Array): number {
  return typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
}

/** A server without the Skills extension. */
export function newServer(options: Partial<ServerOptions> = {}): Server {
  return createServer({ name: 'skills-test', version: '1.0.0', ...options });
}

/** A server with the Skills extension (`options`: its page size and cache hint); `library` serves skills on it. */
export function skillsServer(options?: SkillsOptions): { server: Server; library: SkillsExtension } {
  const library = skills(options);
  return { server: newServer({ extensions: [library] }), library };
}

/** Our client and `server` over an in-memory pair, pinned to `protocolVersion`. */
export function pair(server: Server, protocolVersion: string, options: ConnectOptions = {}) {
  return inMemory(server, { protocolVersion, ...options } as ConnectOptions);
}
