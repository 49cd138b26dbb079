/**
 * Why a stdio server's process went away, in words a newcomer can act on: it could not be
 * started (command not found, not executable, no such working directory), or it exited
 * (with a code or a signal) or closed its stdout, each with the command line and the last
 * lines of its stderr. No `node:` import: the class is part of `janus-mcp/client`.
 */
import { ChannelError } from '../channel.js';

export interface ProcessEnd {
  /** The command line as started (command and arguments). */
  command: string;
  cwd?: string;
  /** What `spawn` reported when the process could not be started at all. */
  spawnError?: Error & { code?: string };
  /** spawn's ENOENT is ambiguous: the command, or the working directory, is missing. */
  cwdMissing?: boolean;
  exitCode: number | null;
  signal: string | null;
  /** It closed its stdout but had not exited yet. */
  running: boolean;
  /** The last lines it wrote to stderr. */
  stderr: string[];
  /** The requests that were waiting for an answer when it went away. */
  waitingFor: string[];
}

/** A stdio server process that could not be started, exited, or closed its stdout. */
export class ProcessChannelError extends ChannelError {
  /** The command line, as started. */
  readonly command: string;
  /** The exit code, when it exited by itself (null otherwise). */
  readonly exitCode: number | null;
  /** The signal that ended it, if one did (e.g. `SIGKILL`). */
  readonly signal: string | null;
  /** The last lines it wrote to stderr (at most 20 lines, 8 KiB). */
  readonly stderrTail: readonly string[];

  constructor(end: ProcessEnd) {
    super(describeEnd(end), undefined, undefined, end.spawnError ? { cause: end.spawnError } : undefined);
    this.name = 'ProcessChannelError';
    this.command = end.command;
    this.exitCode = end.exitCode;
    this.signal = end.signal;
    this.stderrTail = end.stderr;
  }
}

const CHECK =
  'Check that the command starts an MCP server that speaks JSON-RPC on its stdin and stdout; running it by hand in a terminal shows its whole output.';

function describeEnd(end: ProcessEnd): string {
  const who = `the MCP server ${JSON.stringify(end.command)}`;
  if (end.spawnError) return `could not start ${who}: ${whyNotStarted(end)}`;
  const what = end.running
    ? 'closed its stdout (the protocol stream) but is still running'
    : end.signal !== null
      ? `was killed by signal ${end.signal}`
      : `exited with code ${end.exitCode ?? 'unknown'}`;
  const n = end.waitingFor.length;
  const during = n ? ` while ${end.waitingFor.join(' and ')} ${n > 1 ? 'were' : 'was'} waiting for an answer` : '';
  const tail = end.stderr.length
    ? `\nThe last lines of its stderr:\n${end.stderr.map((l) => `  | ${l}`).join('\n')}\n`
    : ' It wrote nothing to stderr. ';
  return `${who} ${what}${during}.${tail}${CHECK}`;
}

function whyNotStarted(end: ProcessEnd): string {
  const e = end.spawnError!;
  if (e.code === 'ENOENT' && end.cwdMissing) {
    return `its working directory ${JSON.stringify(end.cwd)} does not exist (ENOENT). Check the cwd option.`;
  }
  if (e.code === 'ENOENT') {
    return "command not found (ENOENT). Check the command's spelling, and that the program is installed and on the PATH (or give its full path).";
  }
  if (e.code === 'EACCES') {
    return 'permission denied (EACCES): the file is not executable by this user. Check its permissions, or start it through its interpreter (for example: node server.js).';
  }
  return `${e.message}.`;
}
