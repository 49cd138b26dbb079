/**
 * `--sampler CMD`: the server's sampling requests answered by a command. It gets the request
 * (CreateMessageRequest params, JSON) on stdin; its stdout is the answer: a CreateMessageResult
 * as JSON, or plain text taken as the assistant's reply.
 */
import { spawn } from 'node:child_process';
import type { CreateMessageParams, CreateMessageResult } from '../protocol/index.js';

export function commandSampler(
  command: string,
): (params: CreateMessageParams, ctx: { signal: AbortSignal }) => Promise<CreateMessageResult> {
  return (params, ctx) =>
    new Promise((resolve, reject) => {
      // A shell, so CMD may carry arguments and pipes as the user typed them.
      const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'inherit'], signal: ctx.signal });
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => (out += chunk));
      child.once('error', (e) => reject(new Error(`--sampler "${command}" could not run: ${e.message}`)));
      child.once('close', (code, signal) => {
        if (code !== 0) return reject(new Error(`--sampler "${command}" failed (${signal ?? `exit code ${code}`})`));
        resolve(answer(out, command));
      });
      child.stdin.on('error', () => {}); // a sampler that does not read its input
      child.stdin.end(JSON.stringify(params));
    });
}

function answer(out: string, command: string): CreateMessageResult {
  const text = out.replace(/\r?\n$/, '');
  try {
    const parsed = JSON.parse(text) as Partial<CreateMessageResult>;
    if (typeof parsed === 'object' && parsed !== null && 'content' in parsed) {
      return { role: 'assistant', model: command.trim().split(/\s+/)[0]!, ...parsed } as CreateMessageResult;
    }
  } catch {
    // plain text: the reply itself
  }
  return { role: 'assistant', content: { type: 'text', text }, model: command.trim().split(/\s+/)[0]! };
}
