/**
 * Every public error class of `janus-mcp/errors` prints its own name, from the published
 * bundle (where esbuild may rename a class that refers to itself), in every way a program or a
 * person sees it: `String(err)`, `err.name`, `err.constructor.name` and `util.inspect`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';

type Errors = typeof import('../../src/errors/index.js');

const bundle = new URL('../../bundle/errors/index.js', import.meta.url).href;

test('every public error class from the bundled janus-mcp/errors prints its own name', async () => {
  const E = (await import(bundle)) as Errors;
  const made: Record<string, Error> = {
    McpError: new E.McpError(E.ErrorCode.InvalidParams, 'bad params'),
    JanusError: new E.JanusError('TIMEOUT', 'too slow'),
    ToolError: new E.ToolError('no such order'),
    UrlElicitationRequiredError: new E.UrlElicitationRequiredError([
      { message: 'Authorize', url: 'https://example.com/a', elicitationId: 'e1' },
    ]),
    ChannelError: new E.ChannelError('connection closed', 500, 'body'),
    ProcessChannelError: new E.ProcessChannelError({
      command: 'srv',
      exitCode: 1,
      signal: null,
      running: false,
      stderr: [],
      waitingFor: [],
    }),
    SkillVerificationError: new E.SkillVerificationError('digest', 'skill://x', 'digest mismatch'),
    InvalidTokenError: new E.InvalidTokenError('expired'),
    ResourceNotFoundError: new E.ResourceNotFoundError('note://9'),
    McpErrorFrom: E.McpError.from({ code: -32603, message: 'from the wire' }),
  };
  const classes = Object.entries(E)
    .filter(([, v]) => typeof v === 'function')
    .map(([k]) => k);
  for (const name of classes) assert.ok(name in made, `a case for ${name}, a public class of janus-mcp/errors`);
  for (const [key, err] of Object.entries(made)) {
    const name = key === 'McpErrorFrom' ? 'McpError' : key;
    assert.equal(err.name, name, `${key}: err.name`);
    assert.equal(err.constructor.name, name, `${key}: err.constructor.name`);
    assert.ok(String(err).startsWith(`${name}: `), `${key}: String(err) is ${String(err)}`);
    const shown = inspect(err).split('\n')[0]!;
    assert.ok(shown.startsWith(`${name}: `), `${key}: util.inspect shows ${shown}`);
    assert.ok(!/\b_[A-Z]\w*Error\b/.test(inspect(err)), `${key}: no renamed class in ${inspect(err)}`);
  }
});
