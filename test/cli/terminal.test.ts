/**
 * `janus-mcp call` at a terminal, through a pseudo-terminal (`script -qfec CMD /dev/null` gives
 * the command a pty, as a user's shell does): elicitation asked field by field
 * (client/elicitation.mdx: defaults, single and multiple choice, re-asking on a bad value;
 * accept, decline, cancel by Ctrl-D) in both eras, and progress drawn as a bar.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { exited, startExample, stopExample, type ExampleProcess } from '../support/example-process.js';
import { until } from '../support/wait.js';
import { CLI_MAIN, STDIO_TARGET } from './support.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the command in a pty and plays a dialogue: for each step, waits for `prompt` in the
 * transcript (after the previous one) and types `reply` with Enter (`null`: types nothing). Resolves with the whole
 * transcript and the exit code.
 */
async function inTerminal(
  args: string[],
  steps: Array<[prompt: string, reply: string | null]>,
): Promise<{ transcript: string; code: number | null }> {
  const command = [process.execPath, CLI_MAIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TERM: 'dumb' },
  });
  let transcript = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (transcript += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (transcript += c));
  const exit = exited(child);
  let from = 0;
  try {
    for (const [prompt, reply] of steps) {
      const at = await until(
        () => {
          const i = transcript.indexOf(prompt, from);
          return i === -1 ? undefined : i + 1;
        },
        `the prompt "${prompt}" in:\n${transcript}`,
        20_000,
      );
      from = at - 1 + prompt.length;
      if (reply !== null) child.stdin!.write(reply === '\x04' ? reply : `${reply}\r`);
    }
    const code = await exit;
    return { transcript, code };
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
  }
}

/** The line the fixture's elicitation tools answer with. */
function completed(transcript: string): string | undefined {
  return /(?:Elicitation completed|User response): [^\r\n]*/.exec(transcript)?.[0];
}

describe('a terminal', { skip: hasScript ? false : 'no `script` command (util-linux)' }, () => {
  let example: ExampleProcess;
  before(async () => {
    example = await startExample();
  });
  after(() => stopExample(example));

  test('2026-07-28 over HTTP: the form asked field by field, defaults taken on Enter, a bad number asked again', async () => {
    const { transcript, code } = await inTerminal(
      ['call', example.url.href, 'test_elicitation_sep1034_defaults'],
      [
        ['The server asks: Please confirm your details', null],
        ['[a]nswer, [d]ecline or [c]ancel?', 'a'],
        ['name (text, optional) [John Doe]:', 'Ada'],
        ['age (whole number, optional) [30]:', ''],
        ['score (number, optional) [95.5]:', 'lots'],
        ['a number', '7.5'],
        ['3) pending', '2'],
        ['verified (yes/no, optional) [yes]:', 'no'],
      ],
    );
    assert.equal(code, 0, transcript);
    assert.equal(
      completed(transcript),
      'Elicitation completed: action=accept, content={"name":"Ada","age":30,"score":7.5,"status":"inactive","verified":false}',
    );
  });

  test('2025-11-25 over stdio: single and multiple choice by number, value or title', async () => {
    const { transcript, code } = await inTerminal(
      ['call', STDIO_TARGET, 'test_elicitation_sep1330_enums', '--protocol-version', '2025-11-25'],
      [
        ['[a]nswer, [d]ecline or [c]ancel?', ''],
        ['untitledSingle:', null],
        ['choose (number or value, optional):', 'option2'],
        ['3) Third Option [value3]', null],
        ['choose (number or value, optional):', '1'],
        ['3) Option Three [opt3]', null],
        ['choose (number or value, optional):', 'Option Three'],
        ['untitledMulti:', null],
        ['choose (numbers or values, comma-separated, optional):', '1, 3'],
        ['titledMulti:', null],
        ['choose (numbers or values, comma-separated, optional):', 'value2'],
      ],
    );
    assert.equal(code, 0, transcript);
    assert.equal(
      completed(transcript),
      'Elicitation completed: action=accept, content={"untitledSingle":"option2","titledSingle":"value1","legacyEnum":"opt3","untitledMulti":["option1","option3"],"titledMulti":["value2"]}',
    );
  });

  test('decline, and cancel by Ctrl-D', async () => {
    const declined = await inTerminal(
      ['call', example.url.href, 'test_elicitation', '--arg', 'message=Who are you?'],
      [
        ['The server asks: Who are you?', null],
        ['[a]nswer, [d]ecline or [c]ancel?', 'd'],
      ],
    );
    assert.equal(declined.code, 0, declined.transcript);
    assert.equal(completed(declined.transcript), 'User response: action=decline, content={}');
    const cancelled = await inTerminal(
      ['call', STDIO_TARGET, 'test_elicitation', '--arg', 'message=Who are you?', '--protocol-version', '2025-06-18'],
      [
        ['[a]nswer, [d]ecline or [c]ancel?', 'a'],
        ['username (Your username) (text):', '\x04'],
      ],
    );
    assert.equal(cancelled.code, 0, cancelled.transcript);
    assert.equal(completed(cancelled.transcript), 'User response: action=cancel, content={}');
  });

  test('a required field left empty is asked again', async () => {
    const { transcript, code } = await inTerminal(
      ['call', example.url.href, 'test_elicitation', '--arg', 'message=Sign up'],
      [
        ['[a]nswer, [d]ecline or [c]ancel?', 'a'],
        ['username (Your username) (text):', ''],
        ['required', 'ada'],
        ['email (Your email) (text):', 'ada@example.com'],
      ],
    );
    assert.equal(code, 0, transcript);
    assert.equal(completed(transcript), 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
  });

  test('progress is a bar redrawn in place on a terminal, cleared before the result', async () => {
    const { transcript, code } = await inTerminal(['call', example.url.href, 'test_tool_with_progress'], []);
    assert.equal(code, 0, transcript);
    // Each redraw: carriage return, erase the line (ESC [2K), the bar.
    const redraw = '\r\x1b[2K';
    assert.ok(transcript.includes(`${redraw}[${'#'.repeat(15)}${'-'.repeat(15)}] 50% step 50`), transcript);
    assert.ok(transcript.includes(`${redraw}[${'#'.repeat(30)}] 100% step 100`), transcript);
    assert.ok(transcript.includes(`${redraw}Progress test completed`), 'the bar is cleared before the result');
    assert.doesNotMatch(transcript, /^progress \d/m, 'no plain progress lines on a terminal');
  });
});
