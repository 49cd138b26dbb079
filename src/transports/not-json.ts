/**
 * A line from a stdio peer that is not JSON, as the stdio transport reports it to
 * `onParseError`: the client names it in a warning (a server printing on its stdout). Apart
 * from the transport so that the client's message channel knows it without loading stdio.
 */
/** A line from the peer that is not JSON (the transport's parse errors); `line` is its start. */
export class NotJsonLineError extends SyntaxError {
  constructor(
    /** The line, cut to its first LINE_SHOWN characters (with `…` when it was longer). */
    readonly line: string,
    options?: { cause?: unknown },
  ) {
    super(`not JSON: ${JSON.stringify(line)}`, options);
    this.name = 'NotJsonLineError';
  }
}

/** How much of a line that is not JSON its error keeps. */
export const LINE_SHOWN = 200;
