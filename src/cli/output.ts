/** Where the command writes: results to stdout, everything else (help for errors, progress, prompts) to stderr. */
import { HELP } from './help.js';

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Prints a verb's help (or the command's) on stdout; returns exit code 0. */
  help(verb?: string): number;
}

export const processOutput: Output = {
  stdout: (text) => void process.stdout.write(`${text}\n`),
  stderr: (text) => void process.stderr.write(`${text}\n`),
  help(verb) {
    process.stdout.write(`${HELP[verb ?? ''] ?? HELP['']}\n`);
    return 0;
  },
};
