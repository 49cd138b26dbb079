#!/usr/bin/env node
// Conformance runner: drives the official referee (@modelcontextprotocol/conformance)
// against our fixture and judges the result against per-wire baselines.
//
//   node scripts/conformance/run.mjs server [--requirements 2025-11-25|2026-07-28]
//                                           [--scenario NAME] [--url URL] [--fixture FILE.js]
//                                           [--timeout MS] [--results-dir DIR] [--quiet]
//   node scripts/conformance/run.mjs client [--requirements SET] [--scenario NAME] [--command CMD]
//
// Server leg: starts `node dist/test/fixtures/everything/main.js` with PORT=<free port>
// (it must serve http://127.0.0.1:PORT/mcp; one URL serves both wires), then per set:
//   1. `server --requirements <set>` — the scored scenarios of that set (the referee
//      also runs the set's not_scored ones, reported for information only);
//   2. each EXTRA scenario below singly, `--scenario S --spec-version <set> --force`
//      (the not-scored "pending" scenarios this project requires to pass).
// Without --requirements both sets run in sequence against the same server.
// --scenario NAME runs only that scenario, in every set that knows it (or in the
// --requirements set), at that set's wire.
//
// Baselines (expected failures), one file per leg and wire version:
//   conformance/expected-failures/<leg>-<set>.yml   e.g. server-2026-07-28.yml
// Referee YAML format: a `server:` (or `client:`) list of `scenario` or
// `scenario:check-id` entries. Every entry must name a scenario judged for that set
// (its scored list or its EXTRA list). Both kinds of run get the file via
// --expected-failures and the referee judges: a failure (FAILURE or WARNING) that is
// not listed fails the run, and a listed scenario/check that passes fails the run
// ("stale baseline"), so the lists only ever shrink. run.mjs re-judges every run from
// its checks.json with the same rules and fails on any disagreement, a missing result
// or a referee crash. Results land in results/conformance-<timestamp>/ (gitignored).
//
// Exit: 0 all as expected, 1 unexpected failure / stale entry / infrastructure error,
// 2 usage error or leg not implemented.

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONFORMANCE_PKG = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance');
const REFEREE = path.join(CONFORMANCE_PKG, 'dist/index.js');
const SHIM = path.join(ROOT, 'scripts/conformance/node20-shim.mjs');
const BASELINE_DIR = path.join(ROOT, 'conformance/expected-failures');
const DEFAULT_FIXTURE = path.join(ROOT, 'dist/test/fixtures/everything/main.js');
const SETS = ['2025-11-25', '2026-07-28'];
const READY_TIMEOUT_MS = 15_000;

// The authorization extensions' client scenarios (not scored; the official SDK fails three).
const AUTH_EXTENSIONS = [
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/enterprise-managed-authorization',
  'auth/dpop',
  'auth/dpop-nonce',
  'auth/wif-jwt-bearer',
];

// The tasks extension's server scenarios (SEP-2663; not scored, the official SDK fails nine).
const TASKS_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

// The skills extension's scenarios (SEP-2640; not scored). 2026-07-28 only: the extension is
// advertised under capabilities.extensions, which handshake-era revisions do not have.
const SKILLS_SERVER_SCENARIOS = ['sep-2640-skills-directory', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest'];
const SKILLS_CLIENT_SCENARIOS = [
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
];

// Not-scored scenarios this project nevertheless requires, per leg and set.
const EXTRA = {
  server: {
    '2025-11-25': ['json-schema-2020-12', 'server-sse-polling', 'server-session-lifecycle'],
    '2026-07-28': [
      'json-schema-2020-12',
      'http-header-validation',
      'http-custom-header-server-validation',
      ...TASKS_SCENARIOS,
      ...SKILLS_SERVER_SCENARIOS,
    ],
  },
  client: {
    '2025-11-25': [
      'json-schema-2020-12-preservation',
      'auth/2025-03-26-oauth-metadata-backcompat',
      'auth/2025-03-26-oauth-endpoint-fallback',
      ...AUTH_EXTENSIONS,
    ],
    '2026-07-28': ['json-schema-2020-12-preservation', ...AUTH_EXTENSIONS, ...SKILLS_CLIENT_SCENARIOS],
  },
};

// ---------------------------------------------------------------------------
// small helpers

const yaml = createRequire(path.join(CONFORMANCE_PKG, 'package.json'))('yaml');

class UsageError extends Error {}
class InfraError extends Error {}

const rel = (p) => path.relative(process.cwd(), p) || '.';
const log = (...a) => console.log(...a);
const header = (t) => log(`\n${'='.repeat(78)}\n== ${t}\n${'='.repeat(78)}`);

/** Requirement set of the installed referee: { scored: [...], notScored: [{scenario, reason}] } for a leg. */
function loadRequirements(set, leg) {
  const file = path.join(CONFORMANCE_PKG, 'requirements', `${set}.yaml`);
  if (!existsSync(file)) throw new InfraError(`referee has no requirement set ${set} (${rel(file)})`);
  const doc = yaml.parse(readFileSync(file, 'utf8')) ?? {};
  const scored = doc[leg] ?? [];
  const notScored = (doc.not_scored ?? []).filter((e) => e.leg === leg).map((e) => ({ scenario: e.scenario, reason: e.reason }));
  const extras = EXTRA[leg][set];
  for (const s of extras) {
    if (scored.includes(s)) console.warn(`note: EXTRA ${leg} scenario ${s} is now scored in ${set}; drop it from EXTRA in run.mjs`);
  }
  return { set, leg, scored, notScored, extras };
}

/** Parsed baseline for leg+set: { file, entries: [{scenario, checkId?}] }, validated against the judged scenarios. */
function loadBaseline(req) {
  const file = path.join(BASELINE_DIR, `${req.leg}-${req.set}.yml`);
  if (!existsSync(file)) {
    throw new InfraError(`missing baseline ${rel(file)} (create it with "${req.leg}: []" if nothing is expected to fail)`);
  }
  const doc = yaml.parse(readFileSync(file, 'utf8')) ?? {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new InfraError(`${rel(file)}: expected a mapping with a '${req.leg}' key`);
  const otherKeys = Object.keys(doc).filter((k) => k !== req.leg);
  if (otherKeys.length)
    throw new InfraError(`${rel(file)}: unexpected key(s) ${otherKeys.join(', ')} (this file is the ${req.leg} leg only)`);
  const list = doc[req.leg] ?? [];
  if (!Array.isArray(list)) throw new InfraError(`${rel(file)}: '${req.leg}' must be a list`);
  const judged = new Set([...req.scored, ...req.extras]);
  const seen = new Set();
  const entries = list.map((raw) => {
    if (typeof raw !== 'string') {
      throw new InfraError(
        `${rel(file)}: entry ${JSON.stringify(raw)} is not a string (write '- scenario:check-id', no space after the colon)`,
      );
    }
    if (seen.has(raw)) throw new InfraError(`${rel(file)}: duplicate entry ${raw}`);
    seen.add(raw);
    const i = raw.indexOf(':');
    const entry = i === -1 ? { scenario: raw } : { scenario: raw.slice(0, i), checkId: raw.slice(i + 1) };
    if (!judged.has(entry.scenario)) {
      throw new InfraError(
        `${rel(file)}: entry ${raw} names a scenario that is never judged for ${req.set} (not scored there and not in EXTRA.${req.leg})`,
      );
    }
    if (entry.checkId === '' || entry.scenario === '')
      throw new InfraError(`${rel(file)}: entry ${raw}: both sides of the colon are required`);
    return entry;
  });
  const whole = new Set(entries.filter((e) => !e.checkId).map((e) => e.scenario));
  for (const e of entries) {
    if (e.checkId && whole.has(e.scenario)) {
      throw new InfraError(`${rel(file)}: ${e.scenario} is listed whole, so ${e.scenario}:${e.checkId} is redundant (remove one)`);
    }
  }
  return { file, entries };
}

/** Port of the referee's baseline judgement (expected-failures, incl. per-check entries). */
function judge(results, entries) {
  const whole = new Set(entries.filter((e) => !e.checkId).map((e) => e.scenario));
  const perCheck = new Map();
  for (const e of entries) {
    if (!e.checkId) continue;
    if (!perCheck.has(e.scenario)) perCheck.set(e.scenario, new Set());
    perCheck.get(e.scenario).add(e.checkId);
  }
  const bad = (c) => c.status === 'FAILURE' || c.status === 'WARNING';
  const unexpected = [];
  const stale = [];
  const expected = [];
  for (const r of results) {
    if (whole.has(r.scenario)) {
      (r.checks.some(bad) ? expected : stale).push(r.scenario);
      continue;
    }
    const ids = perCheck.get(r.scenario);
    if (!ids) {
      if (r.checks.some(bad)) unexpected.push(r.scenario);
      continue;
    }
    const collapsed = collapseChecks(r.checks);
    for (const c of collapsed.filter(bad)) (ids.has(c.id) ? expected : unexpected).push(`${r.scenario}:${c.id}`);
    for (const id of ids) {
      if (collapsed.find((c) => c.id === id && c.status !== 'INFO')?.status === 'SUCCESS') stale.push(`${r.scenario}:${id}`);
    }
  }
  return { unexpected, stale, expected };
}

/** Repeated check ids collapse to their most severe occurrence (as the referee does). */
function collapseChecks(checks) {
  const rank = (s) => (s === 'FAILURE' ? 3 : s === 'WARNING' ? 2 : s === 'SUCCESS' ? 1 : 0);
  const keep = new Map();
  checks.forEach((c, i) => {
    if (c.status === 'INFO') return;
    const prev = keep.get(c.id);
    if (prev === undefined || rank(c.status) >= rank(checks[prev].status)) keep.set(c.id, i);
  });
  return checks.filter((c, i) => c.status === 'INFO' || keep.get(c.id) === i);
}

/** checks.json files under dir, keyed by scenario: <leg>-<scenario>-<ISO timestamp>/checks.json. */
function readResults(dir, leg) {
  const out = new Map();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'checks.json') {
        const name = path
          .relative(dir, d)
          .split(path.sep)
          .join('/')
          .replace(new RegExp(`^${leg}-`), '')
          .replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
        out.set(name, JSON.parse(readFileSync(p, 'utf8')));
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Result for each scenario; a scenario without checks.json (crashed/skipped) counts as one FAILURE. */
function resultsFor(scenarios, found) {
  return scenarios.map((scenario) => ({
    scenario,
    missing: !found.has(scenario),
    checks: found.get(scenario) ?? [
      { id: scenario, status: 'FAILURE', errorMessage: 'no checks.json: the scenario crashed, was skipped or never ran' },
    ],
  }));
}

const count = (checks, status) => checks.filter((c) => c.status === status).length;

// ---------------------------------------------------------------------------
// processes

const activeChildren = new Set();
let stopping = false; // set on SIGINT/SIGTERM: start no new child processes

function guardSpawn() {
  if (stopping) throw new InfraError('interrupted');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function tcpProbe(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => {
      sock.destroy();
      resolve(false);
    });
  });
}

function waitExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

/** Stop a child we started, by its PID: SIGTERM, then SIGKILL after 5 s. */
async function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(child.pid, 'SIGTERM');
  } catch {
    return;
  }
  if (!(await waitExit(child, 5000))) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    await waitExit(child, 2000);
  }
}

/** Start the fixture server on a free port; resolves once it accepts TCP connections. */
async function startFixture(script, logFile) {
  if (!existsSync(script)) {
    throw new InfraError(`fixture server not found: ${rel(script)} (run \`npm run build\` first)`);
  }
  const port = await freePort();
  guardSpawn();
  const out = createWriteStream(logFile);
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  activeChildren.add(child);
  child.on('exit', () => activeChildren.delete(child));
  let stderrTail = '';
  child.stdout.pipe(out, { end: false });
  child.stderr.on('data', (d) => {
    out.write(d);
    stderrTail = (stderrTail + d.toString()).slice(-4000);
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new InfraError(
        `fixture server exited early (code ${child.exitCode}, signal ${child.signalCode}).\n--- fixture stderr ---\n${stderrTail}`,
      );
    }
    if (await tcpProbe(port)) {
      log(`fixture server ${rel(script)} pid ${child.pid} ready on 127.0.0.1:${port} (log: ${rel(logFile)})`);
      return { child, port, url: `http://127.0.0.1:${port}/mcp`, stderrTail: () => stderrTail };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopChild(child);
  throw new InfraError(
    `fixture server did not accept connections on 127.0.0.1:${port} within ${READY_TIMEOUT_MS / 1000} s.\n--- fixture stderr ---\n${stderrTail}`,
  );
}

/** Run the referee CLI (through the Node 20 shim); output goes to the console and to logFile. */
function runReferee(args, logFile, quiet) {
  guardSpawn();
  return new Promise((resolve) => {
    let output = '';
    const out = createWriteStream(logFile);
    out.write(`$ conformance ${args.join(' ')}\n`);
    if (!quiet) log(`$ conformance ${args.join(' ')}`);
    const child = spawn(process.execPath, ['--import', SHIM, REFEREE, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    activeChildren.add(child);
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (d) => {
        out.write(d);
        output += d.toString();
        if (!quiet) (stream === child.stderr ? process.stderr : process.stdout).write(d);
      });
    }
    child.on('close', (code, signal) => {
      activeChildren.delete(child);
      out.end();
      resolve({ rc: code ?? (signal ? 128 : 1), output });
    });
  });
}

// ---------------------------------------------------------------------------
// server leg

/**
 * One referee invocation plus our own judgement of its results.
 * A scenario without checks.json (it threw inside the referee) is judged as one FAILURE,
 * as the referee does in --requirements mode; in --scenario mode the referee then just
 * exits 1 ("Server test error"), so there the exit code cannot be compared.
 */
async function refereeRun({ label, args, dir, scenarios, baseline, leg, quiet, single = false }) {
  mkdirSync(dir, { recursive: true });
  const logFile = path.join(dir, 'referee.log');
  const { rc, output } = await runReferee([...args, '--expected-failures', baseline.file, '-o', dir], logFile, quiet);
  const found = readResults(dir, leg);
  const results = resultsFor(scenarios, found);
  const verdict = judge(results, baseline.entries);
  const problems = [];
  const notes = results.filter((r) => r.missing).map((r) => `${r.scenario}: no checks.json (the scenario threw; judged as a failure)`);
  const missing = notes.length;
  const ours = verdict.unexpected.length + verdict.stale.length === 0;
  const see = `see ${rel(logFile)}`;
  if (missing === results.length && rc !== 0 && !(single && /Server test error/.test(output))) {
    problems.push(`${label}: referee exited ${rc} without producing any result (${see})`);
  } else if (!(single && missing)) {
    if (rc !== 0 && ours) problems.push(`${label}: referee exited ${rc} although every result matches the baseline (${see})`);
    if (rc === 0 && !ours)
      problems.push(`${label}: referee exited 0 but run.mjs judges a mismatch (judgement drift; trusting the stricter verdict)`);
  }
  return { rc, results, found, verdict, problems, notes };
}

async function runServerLeg(opts) {
  const sets = opts.requirements ? [opts.requirements] : SETS;
  const plan = sets.map((set) => {
    const req = loadRequirements(set, 'server');
    return { req, baseline: loadBaseline(req) };
  });
  if (opts.scenario) {
    const knows = (req) => [...req.scored, ...req.extras, ...req.notScored.map((n) => n.scenario)].includes(opts.scenario);
    for (const p of plan) p.skip = !knows(p.req);
    if (plan.every((p) => p.skip)) throw new UsageError(`scenario ${opts.scenario} is not a server scenario of ${sets.join(' or ')}`);
  }

  const runDir = opts.resultsDir ?? path.join(ROOT, 'results', `conformance-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(runDir, { recursive: true });

  let fixture;
  let url = opts.url;
  const assertFixtureAlive = () => {
    const c = fixture?.child;
    if (c && (c.exitCode !== null || c.signalCode !== null)) {
      throw new InfraError(
        `fixture server died during the run (code ${c.exitCode}, signal ${c.signalCode}); results after that are void.\n--- fixture stderr ---\n${fixture.stderrTail()}`,
      );
    }
  };
  const summaries = [];
  let infraError;
  try {
    if (!url) {
      fixture = await startFixture(opts.fixture ?? DEFAULT_FIXTURE, path.join(runDir, 'fixture-server.log'));
      url = fixture.url;
    }
    for (const { req, baseline, skip } of plan) {
      if (skip) continue;
      const setDir = path.join(runDir, `server-${req.set}`);
      const common = ['server', '--url', url, ...(opts.timeout ? ['--timeout', String(opts.timeout)] : [])];
      const s = { set: req.set, baseline: rel(baseline.file), scored: null, extras: [], other: [], problems: [] };
      if (opts.scenario) {
        header(`server ${req.set}: scenario ${opts.scenario}`);
        const r = await refereeRun({
          label: opts.scenario,
          leg: 'server',
          baseline,
          quiet: opts.quiet,
          args: [...common, '--scenario', opts.scenario, '--spec-version', req.set, '--force'],
          dir: path.join(setDir, 'single'),
          scenarios: [opts.scenario],
          single: true,
        });
        s.single = r;
        s.problems.push(...r.problems);
        assertFixtureAlive();
      } else {
        header(`server ${req.set}: scored scenarios (--requirements ${req.set})`);
        const scored = await refereeRun({
          label: `requirements ${req.set}`,
          leg: 'server',
          baseline,
          quiet: opts.quiet,
          args: [...common, '--requirements', req.set],
          dir: path.join(setDir, 'requirements'),
          scenarios: req.scored,
        });
        s.scored = scored;
        s.problems.push(...scored.problems);
        assertFixtureAlive();
        // not-scored scenarios the requirements run executed for information only
        for (const { scenario, reason } of req.notScored) {
          if (req.extras.includes(scenario)) continue;
          const checks = scored.found.get(scenario);
          s.other.push({ scenario, reason, ran: !!checks, failed: checks ? count(checks, 'FAILURE') > 0 : null });
        }
        for (const scenario of req.extras) {
          header(`server ${req.set}: extra scenario ${scenario} (--spec-version ${req.set})`);
          const r = await refereeRun({
            label: scenario,
            leg: 'server',
            baseline,
            quiet: opts.quiet,
            args: [...common, '--scenario', scenario, '--spec-version', req.set, '--force'],
            dir: path.join(setDir, 'extra', scenario),
            scenarios: [scenario],
            single: true,
          });
          s.extras.push(r);
          s.problems.push(...r.problems);
          assertFixtureAlive();
        }
      }
      summaries.push(s);
    }
  } catch (e) {
    infraError = e;
  } finally {
    if (fixture) await stopChild(fixture.child);
  }
  return printSummary('server', summaries, runDir, infraError);
}

function describe(r) {
  const res = r.results[0];
  const f = count(res.checks, 'FAILURE');
  const w = count(res.checks, 'WARNING');
  const ok = count(res.checks, 'SUCCESS');
  const state = f + w === 0 ? 'pass' : `${f} failed${w ? `, ${w} warnings` : ''}`;
  const verdict = r.verdict.unexpected.length
    ? 'UNEXPECTED'
    : r.verdict.stale.length
      ? 'STALE BASELINE'
      : r.verdict.expected.length
        ? 'expected'
        : 'ok';
  return `${res.scenario}: ${state} (${ok} checks ok) -> ${verdict}`;
}

function printSummary(leg, summaries, runDir, infraError) {
  header(`conformance summary: ${leg} leg`);
  const unexpected = [];
  const stale = [];
  const problems = [];
  const notes = [];
  for (const s of summaries) {
    log(`${s.set}  (baseline ${s.baseline})`);
    const runs = [];
    if (s.scored) {
      const res = s.scored.results;
      const passed = res.filter((r) => count(r.checks, 'FAILURE') === 0);
      const warned = passed.filter((r) => count(r.checks, 'WARNING') > 0);
      log(
        `  scored     ${passed.length}/${res.length} passed${warned.length ? ` (${warned.length} with warnings: ${warned.map((r) => r.scenario).join(', ')})` : ''}` +
          `, ${s.scored.verdict.expected.length} expected failure(s) in baseline`,
      );
      runs.push(s.scored);
    }
    for (const r of s.extras) {
      log(`  extra      ${describe(r)}`);
      runs.push(r);
    }
    if (s.single) {
      log(`  single     ${describe(s.single)}`);
      runs.push(s.single);
    }
    if (s.other.length) {
      const ran = s.other.filter((o) => o.ran);
      log(
        `  info only  ${ran.filter((o) => !o.failed).length}/${s.other.length} other not-scored passing ` +
          `(${s.other.map((o) => `${o.scenario}${o.ran ? (o.failed ? ' ✗' : ' ✓') : ' -'}`).join(', ')})`,
      );
    }
    for (const r of runs) {
      unexpected.push(...r.verdict.unexpected.map((x) => `${s.set} ${x}`));
      stale.push(...r.verdict.stale.map((x) => `${s.set} ${x}`));
    }
    for (const r of runs) notes.push(...r.notes.map((n) => `${s.set} ${n}`));
    problems.push(...s.problems.map((p) => `${s.set} ${p}`));
  }
  if (notes.length) log(`\nNotes:\n${notes.map((x) => `  - ${x}`).join('\n')}`);
  if (unexpected.length) log(`\nUnexpected failures (not in baseline):\n${unexpected.map((x) => `  ✗ ${x}`).join('\n')}`);
  if (stale.length) log(`\nStale baseline entries (now passing: remove them):\n${stale.map((x) => `  ✓ ${x}`).join('\n')}`);
  if (problems.length) log(`\nProblems:\n${problems.map((x) => `  ! ${x}`).join('\n')}`);
  if (infraError) log(`\nERROR: ${infraError.message}`);
  log(`\nresults: ${rel(runDir)}`);
  const ok = !infraError && !unexpected.length && !stale.length && !problems.length;
  log(ok ? 'CONFORMANCE: OK (every failure is baselined, no stale entries)' : 'CONFORMANCE: FAILED');
  return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------
// client leg
//
// The referee starts a mock server per scenario and runs our client command against it
// (`CLIENT_COMMAND <url>`, scenario and version in its environment). Scored scenarios run
// with --requirements, the project's extra ones one by one, as on the server leg.

const CLIENT_COMMAND = 'npm run --silent fixture:client --';

async function runClientLeg(opts) {
  const sets = opts.requirements ? [opts.requirements] : SETS;
  const plan = sets.map((set) => {
    const req = loadRequirements(set, 'client');
    return { req, baseline: loadBaseline(req) };
  });
  const runDir = opts.resultsDir ?? path.join(ROOT, 'results', `conformance-client-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(runDir, { recursive: true });
  const summaries = [];
  let infraError;
  try {
    for (const { req, baseline } of plan) {
      const setDir = path.join(runDir, `client-${req.set}`);
      const common = ['client', '--command', opts.command ?? CLIENT_COMMAND, ...(opts.timeout ? ['--timeout', String(opts.timeout)] : [])];
      const s = { set: req.set, baseline: rel(baseline.file), scored: null, extras: [], other: [], problems: [] };
      if (opts.scenario) {
        header(`client ${req.set}: scenario ${opts.scenario}`);
        const r = await refereeRun({
          label: opts.scenario,
          leg: 'client',
          baseline,
          quiet: opts.quiet,
          args: [...common, '--scenario', opts.scenario, '--spec-version', req.set, '--force'],
          dir: path.join(setDir, 'single'),
          scenarios: [opts.scenario],
          single: true,
        });
        s.single = r;
        s.problems.push(...r.problems);
      } else {
        header(`client ${req.set}: scored scenarios (--requirements ${req.set})`);
        const scored = await refereeRun({
          label: `requirements ${req.set}`,
          leg: 'client',
          baseline,
          quiet: opts.quiet,
          args: [...common, '--requirements', req.set],
          dir: path.join(setDir, 'requirements'),
          scenarios: req.scored,
        });
        s.scored = scored;
        s.problems.push(...scored.problems);
        for (const { scenario, reason } of req.notScored) {
          if (req.extras.includes(scenario)) continue;
          const checks = scored.found.get(scenario);
          s.other.push({ scenario, reason, ran: !!checks, failed: checks ? count(checks, 'FAILURE') > 0 : null });
        }
        for (const scenario of req.extras) {
          header(`client ${req.set}: extra scenario ${scenario} (--spec-version ${req.set})`);
          const r = await refereeRun({
            label: scenario,
            leg: 'client',
            baseline,
            quiet: opts.quiet,
            args: [...common, '--scenario', scenario, '--spec-version', req.set, '--force'],
            dir: path.join(setDir, 'extra', scenario.replace(/\//g, '-')),
            scenarios: [scenario],
            single: true,
          });
          s.extras.push(r);
          s.problems.push(...r.problems);
        }
      }
      summaries.push(s);
    }
  } catch (e) {
    infraError = e;
  }
  return printSummary('client', summaries, runDir, infraError);
}

// ---------------------------------------------------------------------------
// main

const USAGE = `usage: node scripts/conformance/run.mjs <server|client> [options]
  --requirements <set>   only this set (${SETS.join(' | ')}); default: both in sequence
  --scenario <name>      run only this scenario (judged against the set's baseline)
  --url <url>            test an already running server instead of starting the fixture
  --fixture <file.js>    fixture server script (default: dist/test/fixtures/everything/main.js)
  --timeout <ms>         per-scenario timeout passed to the referee (referee default 30000)
  --results-dir <dir>    where to write results (default: results/conformance-<timestamp>)
  --command <cmd>        client leg: the client command (default: ${CLIENT_COMMAND})
  --quiet                keep referee output in the log files only`;

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        requirements: { type: 'string' },
        scenario: { type: 'string' },
        url: { type: 'string' },
        fixture: { type: 'string' },
        timeout: { type: 'string' },
        'results-dir': { type: 'string' },
        quiet: { type: 'boolean', default: false },
        command: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    log(USAGE);
    return 0;
  }
  const [leg, ...rest] = positionals;
  if (!leg || rest.length) throw new UsageError(leg ? `unexpected argument(s): ${rest.join(' ')}` : 'missing leg');
  if (values.requirements && !SETS.includes(values.requirements)) throw new UsageError(`unknown requirement set ${values.requirements}`);
  if (values.timeout && !/^\d+$/.test(values.timeout)) throw new UsageError('--timeout takes milliseconds');
  const opts = {
    requirements: values.requirements,
    scenario: values.scenario,
    url: values.url,
    fixture: values.fixture && path.resolve(values.fixture),
    timeout: values.timeout,
    resultsDir: values['results-dir'] && path.resolve(values['results-dir']),
    quiet: values.quiet,
    command: values.command,
  };
  if (!existsSync(REFEREE)) throw new InfraError(`referee not installed at ${rel(REFEREE)} (run \`npm ci\`)`);
  if (leg === 'server') return runServerLeg(opts);
  if (leg === 'client') return runClientLeg(opts);
  throw new UsageError(`unknown leg ${leg}`);
}

async function killActive() {
  await Promise.all([...activeChildren].map((c) => stopChild(c)));
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${sig}: stopping child processes`);
    killActive().finally(() => process.exit(130));
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (e) => {
    await killActive();
    if (e instanceof UsageError) {
      console.error(`error: ${e.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      console.error(`error: ${e instanceof InfraError ? e.message : (e.stack ?? e)}`);
      process.exitCode = 1;
    }
  },
);
