/**
 * A line from a stdio peer that is not JSON, as the stdio transport reports it to
 * `onParseError`: the client names it in a warning (a server printing on its stdout). Apart
 * from the transport so that the client's message channel knows it without loading stdio.
 */
/** A line from the peer that is not JSON (the transport's parse errors); `line` is its start. */
export class NotJsonLineError extends SyntaxError {
  constructor(
    /** The line, cut by {@link excerpt}. */
    readonly line: string,
    options?: { cause?: unknown },
  ) {
    super(`not JSON: ${JSON.stringify(line)}`, options);
    this.name = 'NotJsonLineError';
  }
}

/** How much of what a peer sent that is not a message a report shows. */
const SHOWN = 200;

/** `text` cut to its first 200 characters, with `…` when it was longer: for warnings about what a peer sent. */
export function excerpt(text: string): string {
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
}
