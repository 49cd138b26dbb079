/**
 * docs/performance.md cannot drift from its data: its charts are what `npm run bench:report`
 * draws from the committed results JSON, byte for byte, and every ratio in its tables is either
 * that JSON's (a table marked `<!-- ratios: from bench/reports/<file> -->`) or quoted from the
 * measurement history, bench/NOTES.md (`<!-- ratios: quoted from bench/NOTES.md -->`), where
 * the same row holds the same ratios.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { charts, headlineRows, newestReport, ratioChart, ratioTable, repoRoot, type Results } from '../../bench/report.js';

const page = readFileSync(join(repoRoot, 'docs', 'performance.md'), 'utf8');
const notes = readFileSync(join(repoRoot, 'bench', 'NOTES.md'), 'utf8');
/** The cells of every table line of bench/NOTES.md. */
const notesRows = notes
  .split('\n')
  .filter((l) => l.startsWith('|'))
  .map((l) =>
    l
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim()),
  );
const reportFile = newestReport();
const results = JSON.parse(readFileSync(reportFile, 'utf8')) as Results;

/** The Markdown tables of the page, each with the HTML comment right above it (if any). */
function tables(text: string): Array<{ marker: string | undefined; rows: string[][]; line: number }> {
  const lines = text.split('\n');
  const found: Array<{ marker: string | undefined; rows: string[][]; line: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || (i > 0 && lines[i - 1]!.startsWith('|'))) continue;
    const rows: string[][] = [];
    for (let j = i; j < lines.length && lines[j]!.startsWith('|'); j++)
      rows.push(
        lines[j]!.slice(1, -1)
          .split('|')
          .map((c) => c.trim()),
      );
    const marker = /^<!-- ratios: (.*) -->$/.exec(lines[i - 1] ?? '')?.[1];
    found.push({ marker, rows: rows.slice(2), line: i + 1 });
  }
  return found;
}

test('the committed charts are what bench:report draws from the newest committed JSON, byte for byte', () => {
  const drawn = charts(results);
  const committed = readdirSync(join(repoRoot, 'docs', 'performance')).filter((f) => f.endsWith('.svg'));
  assert.deepEqual(committed.sort(), [...drawn.keys()].sort(), 'no chart without its data, no data without its chart');
  for (const [name, svg] of drawn) {
    assert.equal(readFileSync(join(repoRoot, 'docs', 'performance', name), 'utf8'), svg, `${name}: run npm run bench:report`);
    assert.ok(page.includes(`(performance/${name})`), `the page shows ${name}`);
  }
  assert.ok(page.includes(`bench/reports/${basename(reportFile)}`), 'the page names the JSON its charts come from');
});

test('a chart follows its data: another ratio draws another bar', () => {
  const changed = structuredClone(results);
  // A row the chart draws (its headline rows), not only one the JSON has.
  const [drawn] = headlineRows(changed).filter((r) => r.vsBare != null);
  assert.ok(drawn, 'the chart draws a ratio to bare Node');
  drawn.vsBare = drawn.vsBare! * 2;
  assert.notEqual(ratioChart(changed, 'bare'), ratioChart(results, 'bare'));
});

test('every ratio table of the page is marked, and its ratios are in the committed JSON or quoted from bench/NOTES.md', () => {
  const ratioTables = tables(page).filter((t) => t.rows.some((r) => r.some((c) => /^\d[\d.,]*×$/.test(c))));
  assert.ok(
    ratioTables.some((t) => t.marker === `from bench/reports/${basename(reportFile)}`),
    'the page has the ratio table of the newest committed JSON',
  );
  const generated = ratioTable(results).split('\n').slice(2);
  for (const t of ratioTables) {
    assert.ok(t.marker, `docs/performance.md:${t.line}: a ratio table says where its figures come from`);
    if (t.marker.startsWith('from ')) {
      assert.equal(t.marker, `from bench/reports/${basename(reportFile)}`, `docs/performance.md:${t.line}: the newest committed JSON`);
      assert.deepEqual(
        t.rows.map((r) => `| ${r.join(' | ')} |`),
        generated,
        `docs/performance.md:${t.line}: the table is npm run bench:report -- --table's`,
      );
    } else {
      assert.equal(t.marker, 'quoted from bench/NOTES.md');
      for (const [scenario, step, metric, ...ratios] of t.rows) {
        const source = notesRows.find(
          (c) => c[0] === scenario && c[1] === step && c[2]!.startsWith(`${metric} (`) && ratios.every((r) => c.includes(r)),
        );
        assert.ok(
          source,
          `docs/performance.md:${t.line}: "${scenario} | ${step} | ${metric}" with ${ratios.join(', ')} is not in bench/NOTES.md`,
        );
      }
    }
  }
});
