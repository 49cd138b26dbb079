/**
 * The repository explains itself. Two rules, checked on the files as they are in the
 * repository (not on dist/):
 *
 * - No comment, doc or test cites what a reader of the repository cannot open: a design
 *   document kept elsewhere, the planning notes a feature came from ("seed 004"), an issue
 *   number, a README section of another repository or an offline digest of the MCP
 *   specification. A reason is stated where it applies, or points to a file of the repository
 *   (docs/architecture.md is its design document). Citations of public specifications stay:
 *   the MCP specification's own pages (`lifecycle.mdx §Initialization`), SEPs, RFCs.
 * - src/ holds no `as unknown as`: a value whose type the compiler cannot see is narrowed by a
 *   type guard, a validating parse or a narrower type, never asserted through `unknown`.
 *
 * A comment broken over lines is read as one line (the leader of each continuation line,
 * ` * `, `// ` or `# `, as a space), so a citation split by the line width is still found.
 * This file spells out what it forbids, so it is the one file not scanned.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { before, describe, test } from 'node:test';
import { findRepoRoot } from '../support/wire-schema.js';

/** This file, repository-relative: it names the forbidden references in order to find them. */
const SELF = 'test/architecture/self-contained.test.ts';

/** What the reference rule reads: the folders (walked) and single files of the repository's own text. */
const SCANNED = [
  'src',
  'test',
  'docs',
  'bench',
  'examples',
  'scripts',
  'conformance',
  '.ci',
  'README.md',
  'spec/README.md',
  'package.json',
];
/** Folders never walked: installed packages and build output. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git']);

interface Reference {
  /** Why it may not be cited, for the failure message. */
  readonly what: string;
  readonly pattern: RegExp;
}

/** References to what is not in the repository. Each is matched case-insensitively on a comment's joined lines. */
const OUTSIDE_REFERENCES: readonly Reference[] = [
  { what: 'a design document outside the repository (say the reason, or point to docs/architecture.md)', pattern: /\bDESIGN\.md\b/i },
  // Product seeds are numbered from 000; random seeds (the fuzzers' `seed`, JANUS_FUZZ_SEED) are not.
  { what: 'a product seed, planning notes outside the repository (say what the feature does)', pattern: /\bseeds?\s+0\d\d\b/i },
  { what: 'the product seeds, planning notes outside the repository', pattern: /\bproduct\s+seeds?\b|(?<!\brandom\s)\bseeds\b/i },
  { what: 'an issue number (state the requirement itself)', pattern: /\b(?:issues?|pull\s+requests?|PRs?)\s+#?\d+/i },
  { what: 'an offline digest of the MCP specification (cite the specification page, or state the fact)', pattern: /\bmcp-spec\b/i },
  { what: "a section of a README that is not this repository's (cite the source itself)", pattern: /\bREADME\s*§/i },
  { what: "another project's code, which the reader cannot see here", pattern: /\bmetosin\b/i },
];

/** An assertion through `unknown`, which hides a type the compiler cannot check. */
const AS_UNKNOWN_AS = /\bas\s+unknown\s+as\b/;

/** The text with every line break, and the comment leader after it, read as one space; and where each line starts in it. */
function joinLines(text: string): { readonly joined: string; readonly starts: readonly number[] } {
  const starts: number[] = [];
  let joined = '';
  for (const [i, line] of text.split('\n').entries()) {
    const piece = i === 0 ? line : ` ${line.replace(/^\s*(?:\*(?!\/)|\/\/|#+)?\s*/, '')}`;
    starts.push(joined.length + (i === 0 ? 0 : 1));
    joined += piece;
  }
  return { joined, starts };
}

/** Where each match of `pattern` starts in `text`: `line: match`, line numbers from 1. */
function findAll(text: string, pattern: RegExp): string[] {
  const { joined, starts } = joinLines(text);
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  const found: string[] = [];
  for (const m of joined.matchAll(global)) {
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= m.index) line++;
    found.push(`${line + 1}: ${m[0]}`);
  }
  return found;
}

/** Every file under `path` (a file or a folder, repository-relative), sorted, in posix form. */
function filesUnder(root: string, path: string): string[] {
  if (!statSync(join(root, path)).isDirectory()) return [path];
  return readdirSync(join(root, path))
    .sort()
    .filter((name) => !SKIPPED_FOLDERS.has(name))
    .flatMap((name) => filesUnder(root, posix.join(path, name)));
}

/** Text files only: a file with a NUL byte is binary. */
function readText(root: string, file: string): string | undefined {
  const text = readFileSync(join(root, file), 'utf8');
  return text.includes('\0') ? undefined : text;
}

describe('the repository explains itself', () => {
  let root: string;
  before(() => {
    const found = findRepoRoot();
    assert.ok(found, 'no janus-mcp package.json above the tests');
    root = found;
  });

  test('no comment, doc or test cites a document outside the repository, a product seed or an issue number', () => {
    const files = SCANNED.flatMap((path) => filesUnder(root, path)).filter((file) => file !== SELF);
    for (const expected of ['README.md', 'conformance/README.md', 'docs/architecture.md', 'src/server/core.ts', 'test/fuzz/model.ts']) {
      assert.ok(files.includes(expected), `${expected} is not among the scanned files`);
    }
    assert.ok(files.length > 400, `found only ${files.length} files to scan`);
    const problems: string[] = [];
    for (const file of files) {
      const text = readText(root, file);
      if (text === undefined) continue;
      for (const { what, pattern } of OUTSIDE_REFERENCES) {
        for (const hit of findAll(text, pattern)) problems.push(`${file}:${hit}  (${what})`);
      }
    }
    assert.deepEqual(problems, [], `references a reader of the repository cannot follow:\n${problems.join('\n')}`);
  });

  test('src/ has no `as unknown as`', () => {
    const files = filesUnder(root, 'src');
    assert.ok(files.length > 50, `found only ${files.length} files under src/`);
    const problems: string[] = [];
    for (const file of files) {
      const text = readText(root, file);
      if (text !== undefined) for (const hit of findAll(text, AS_UNKNOWN_AS)) problems.push(`${file}:${hit}`);
    }
    assert.deepEqual(
      problems,
      [],
      `assertions through unknown (narrow the value with a type guard, a validating parse or a narrower type instead):\n${problems.join('\n')}`,
    );
  });
});

describe('the checks themselves', () => {
  const flagged = (text: string) => OUTSIDE_REFERENCES.filter(({ pattern }) => findAll(text, pattern).length > 0).length > 0;

  test('each forbidden reference is found, also when a comment breaks it over lines', () => {
    for (const text of [
      'the layers of DESIGN.md',
      '(DESIGN.md §Safe by default)',
      'seed 004',
      "Seed 004's marker",
      'seeds 000 and 001',
      'the product seeds',
      'issue 11',
      '(issue #15)',
      'GitHub issue 15 item 7',
      'issues 9 and 10',
      'pull request 12',
      'mcp-spec README §3.12',
      'batches (README §2.1)',
      'conformance README §5.4',
      "as metosin's mcp-toolkit does",
      '/**\n * Sessions (issue\n * 11): any instance\n */',
      '// the command is a thin layer (see\n// DESIGN.md)',
      '### After issue 15',
    ]) {
      assert.ok(flagged(text), `not flagged: ${JSON.stringify(text)}`);
    }
  });

  test('random seeds, the public specifications and ordinary words are not flagged', () => {
    for (const text of [
      'A failure prints the seed and the path of the shrunk case',
      'JANUS_FUZZ_SEED=1234 JANUS_FUZZ_PATH=0:1',
      '--seed N',
      'console.log(`seed ${r.seed}: OK`)',
      'random seeds',
      'lifecycle.mdx §Initialization',
      'docs/2026-07-28/basic/versioning.mdx §Backward Compatibility',
      'SEP-2575 §Missing Required Capabilities',
      'RFC 9449 §4.3 item 9',
      'the issuer of the token; issued 3 times',
      'const state = await issue(b);',
      'a PKCS#8 PEM key',
      "replay(s, 'a#1')",
      'see docs/architecture.md and conformance/README.md',
      'the seed of a fuzz run',
    ]) {
      assert.ok(!flagged(text), `flagged: ${JSON.stringify(text)}`);
    }
  });

  test('a match is reported on the line it starts on', () => {
    assert.deepEqual(findAll('/**\n * one\n * two (issue\n * 9)\n */', OUTSIDE_REFERENCES[3]!.pattern), ['3: issue 9']);
    assert.deepEqual(findAll('const a = 1;\nconst b = x as unknown as T;\n', AS_UNKNOWN_AS), ['2: as unknown as']);
    assert.deepEqual(findAll('const b = x as unknown\n  as T;\n', AS_UNKNOWN_AS), ['1: as unknown as']);
  });
});
