/**
 * The syntax of an RFC 6570 URI template (§2), checked when a resource template is registered:
 * a template the matcher would misread (an unbalanced brace, an empty expression, an operator
 * RFC 6570 reserves, a variable name it does not allow) is a mistake to report then, in words
 * that say where it is and what to write, rather than a template that never matches.
 */

/** RFC 6570 §2.2: the operators of levels 2 and 3. */
const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);
/** §2.2: reserved for future extensions, an error in a template today. */
const RESERVED_OPERATORS = new Set(['=', ',', '!', '@', '|']);
/** §2.3: varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded. */
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
/** §2.4.1: a prefix length is 1 to 9999, without leading zeros. */
const MAX_LENGTH = /^[1-9][0-9]{0,3}$/;

/** One expression of a template: its operator ('' for none) and its variables' names, as written. */
export interface TemplateExpression {
  operator: string;
  names: string[];
  /** Offset of the expression's `{` in the template. */
  index: number;
  /** The whole expression, braces included. */
  text: string;
}

/** What is wrong with `template`, in words, or undefined when it is a valid RFC 6570 template. */
export function templateProblem(template: string): string | undefined {
  const parsed = parseTemplate(template);
  return typeof parsed === 'string' ? parsed : undefined;
}

/** The expressions of `template`, or a description of its first syntax error. */
export function parseTemplate(template: string): TemplateExpression[] | string {
  const expressions: TemplateExpression[] = [];
  let i = 0;
  while (i < template.length) {
    const ch = template[i]!;
    if (ch === '}') return `a "}" at offset ${i} closes no expression: write "{" before it, or leave it out`;
    if (ch !== '{') {
      i++;
      continue;
    }
    const close = template.indexOf('}', i + 1);
    const reopen = template.indexOf('{', i + 1);
    if (close < 0 || (reopen >= 0 && reopen < close)) {
      return `the "{" at offset ${i} is never closed: every expression ends with "}" (e.g. {name})`;
    }
    const text = template.slice(i, close + 1);
    const problem = expressionProblem(text.slice(1, -1));
    if (typeof problem === 'string') return `the expression ${text} at offset ${i} ${problem}`;
    expressions.push({ ...problem, index: i, text });
    i = close + 1;
  }
  return expressions;
}

function expressionProblem(body: string): { operator: string; names: string[] } | string {
  if (body === '') return 'is empty: name a variable, e.g. {id}';
  let operator = body[0]!;
  if (RESERVED_OPERATORS.has(operator)) {
    return `uses the operator "${operator}", which RFC 6570 reserves for future extensions: use one of + # . / ; ? & or none`;
  }
  if (!OPERATORS.has(operator)) operator = '';
  const list = body.slice(operator.length);
  if (list === '') return `has the operator "${operator}" but no variable: write {${operator}name}`;
  const names: string[] = [];
  for (const spec of list.split(',')) {
    if (spec === '') return 'has an empty variable between commas: write {a,b}';
    const colon = spec.indexOf(':');
    const explode = colon < 0 && spec.endsWith('*');
    const name = colon >= 0 ? spec.slice(0, colon) : explode ? spec.slice(0, -1) : spec;
    if (colon >= 0 && !MAX_LENGTH.test(spec.slice(colon + 1))) {
      return `has the prefix "${spec.slice(colon)}" on ${JSON.stringify(name)}: a prefix is ":" and a length from 1 to 9999, e.g. {${name}:3}`;
    }
    if (!VARNAME.test(name)) {
      return `has the variable name ${JSON.stringify(name)}, which RFC 6570 does not allow: names are letters, digits, "_" and percent-encoded bytes, with single dots between them`;
    }
    names.push(name);
  }
  return { operator, names };
}
