/**
 * `call TARGET TOOL [JSON | --arg key=value …]`: one tool call, with the server's questions
 * answered on the way (elicitation from the terminal, a file or refused; sampling by a
 * command). The client runs the protocol (input_required rounds, tasks, progress); this file
 * only chooses the answers and prints.
 */
import { type Client, connect, type ConnectOptions } from '../client/index.js';
import type { LoggingLevel } from '../protocol/index.js';
import { answersFromFile, declineAll, type Elicitor } from './answers.js';
import { CONNECT_OPTIONS, UsageError, connectOptions, parseVerb, target } from './args.js';
import { resultText } from './format.js';
import type { Output } from './output.js';
import { progressView } from './progress.js';
import { terminalElicitor } from './prompt.js';
import { commandSampler } from './sampler.js';
import { argPairs, typedArguments } from './typed-args.js';

const CALL_OPTIONS = {
  ...CONNECT_OPTIONS,
  arg: { type: 'string', multiple: true },
  answers: { type: 'string' },
  'no-input': { type: 'boolean' },
  sampler: { type: 'string' },
  'log-level': { type: 'string' },
} as const;

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export async function callVerb(args: string[], out: Output): Promise<number> {
  const { values, positionals } = parseVerb('call', args, CALL_OPTIONS);
  if (values.help) return out.help('call');
  const where = target('call', positionals);
  const tool = positionals[1];
  if (!tool) throw new UsageError('missing TOOL (the name of the tool to call)', 'call');
  if (positionals.length > 3) throw new UsageError(`unexpected argument "${positionals[3]}"`, 'call');
  const jsonArgs = jsonArguments(positionals[2]);
  const pairs = argPairs(values.arg ?? []);
  const logLevel = values['log-level'];
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel))
    throw new UsageError(`--log-level is one of ${LOG_LEVELS.join(', ')}`, 'call');

  const options: ConnectOptions = connectOptions('call', values);
  const terminal = !values.answers && !values['no-input'] && process.stdin.isTTY ? terminalElicitor() : undefined;
  const elicit: Elicitor = values.answers
    ? answersFromFile(values.answers, out.stderr)
    : values['no-input']
      ? declineAll('--no-input', out.stderr)
      : (terminal?.elicit ?? declineAll('stdin is not a terminal: give the answers with --answers FILE', out.stderr));
  options.onElicit = (params) => elicit(params);
  if (values.sampler) options.onSample = commandSampler(values.sampler);
  if (logLevel !== undefined) {
    options.logLevel = logLevel as LoggingLevel;
    options.onNotification = (n) => {
      if (n.method !== 'notifications/message') return;
      const p = (n.params ?? {}) as { level?: string; logger?: string; data?: unknown };
      out.stderr(`[${p.level}${p.logger ? ` ${p.logger}` : ''}] ${typeof p.data === 'string' ? p.data : JSON.stringify(p.data)}`);
    };
  }

  const progress = progressView();
  const stop = new AbortController();
  const interrupt = () => stop.abort(new Error('interrupted (SIGINT)'));
  process.once('SIGINT', interrupt);
  try {
    const client = await connect(where, options);
    try {
      // --arg values are typed by the tool's input schema: the tools are listed first.
      const toolArgs = pairs.length === 0 ? jsonArgs : { ...jsonArgs, ...typedArguments(pairs, await inputSchemaOf(client, tool)) };
      const result = await client.callTool(tool, toolArgs, { onProgress: (p) => progress.update(p), signal: stop.signal });
      progress.done();
      if (values.json) out.stdout(JSON.stringify(result, null, 2));
      else if (result.isError) out.stderr(`${resultText(result) || 'the tool failed'}`);
      else out.stdout(resultText(result));
      return result.isError ? 1 : 0;
    } finally {
      progress.done();
      await client.close();
    }
  } finally {
    terminal?.close();
    process.removeListener('SIGINT', interrupt);
  }
}

/** The JSON positional: an object of arguments. */
function jsonArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`the arguments are not JSON: ${e instanceof Error ? e.message : String(e)}`, 'call');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError('the arguments must be a JSON object', 'call');
  return parsed as Record<string, unknown>;
}

/** The tool's input schema from the server's listing; undefined when it is not listed (or cannot be). */
async function inputSchemaOf(client: Client, tool: string): Promise<unknown> {
  try {
    return (await client.listAllTools()).find((t) => t.name === tool)?.inputSchema;
  } catch {
    return undefined; // no listing: the values are read as before, and the call itself says what is wrong
  }
}
