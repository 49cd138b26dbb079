/**
 * `janus-mcp install` beyond one host's defaults: scopes, the locations on macOS and Windows
 * (APPDATA, USERPROFILE's place taken by HOME), `cmd /c npx` for Windows, URLs per host and
 * Claude Desktop's refusal, --print for any host, JSONC files (VS Code), files given as SERVER
 * (.ts through tsx, --serve through janus-mcp serve, which starts), and usage errors.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI_MAIN, writeServerModule } from '../support.js';
import { at, install, installed, machine, readJson, startEntry, writeStdioServer } from './support.js';

describe('scopes', () => {
  test('claude-code: local (the default) under the project in ~/.claude.json, user at its top, project in .mcp.json', async () => {
    const m = machine();
    const server = writeStdioServer(m);
    const stdio = { type: 'stdio', command: 'node', args: [server] };
    await installed(m, ['claude-code', 'server.mjs', '--name', 'here']);
    await installed(m, ['claude-code', 'server.mjs', '--name', 'everywhere', '--scope', 'user']);
    await installed(m, ['claude-code', 'server.mjs', '--name', 'shared', '--scope', 'project']);
    assert.deepEqual(readJson(join(m.home, '.claude.json')), {
      projects: { [m.project]: { mcpServers: { here: stdio } } },
      mcpServers: { everywhere: stdio },
    });
    assert.deepEqual(readJson(join(m.project, '.mcp.json')), { mcpServers: { shared: stdio } });
  });

  test('--project names the project folder of local, project and workspace scopes', async () => {
    const m = machine();
    writeStdioServer(m);
    const other = join(m.root, 'other-project');
    await installed(m, ['claude-code', 'server.mjs', '--project', other]);
    await installed(m, ['vscode', 'server.mjs', '--project', other]);
    await installed(m, ['cursor', 'server.mjs', '--project', other, '--scope', 'project']);
    assert.ok(at(readJson(join(m.home, '.claude.json')), ['projects', other, 'mcpServers', 'weather-mcp']));
    assert.ok(at(readJson(join(other, '.vscode', 'mcp.json')), ['servers', 'weather-mcp']));
    assert.ok(at(readJson(join(other, '.cursor', 'mcp.json')), ['mcpServers', 'weather-mcp']));
  });

  test('vscode --scope user: Code/User/mcp.json under XDG_CONFIG_HOME on Linux, Application Support on macOS', async () => {
    const m = machine();
    writeStdioServer(m);
    await installed(m, ['vscode', 'server.mjs', '--scope', 'user']);
    assert.ok(at(readJson(join(m.xdg, 'Code', 'User', 'mcp.json')), ['servers', 'weather-mcp']));
    await installed(m, ['vscode', 'server.mjs', '--scope', 'user', '--platform', 'darwin']);
    assert.ok(at(readJson(join(m.home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json')), ['servers', 'weather-mcp']));
  });

  test('claude-desktop on macOS: Library/Application Support/Claude', async () => {
    const m = machine();
    writeStdioServer(m);
    const r = await installed(m, ['claude-desktop', 'server.mjs', '--platform', 'darwin']);
    assert.doesNotMatch(r.stdout, /no official Linux build/);
    assert.ok(
      at(readJson(join(m.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')), ['mcpServers', 'weather-mcp']),
    );
  });

  test('a scope the host does not have is a usage error', async () => {
    const m = machine();
    writeStdioServer(m);
    const r = await install(m, ['windsurf', 'server.mjs', '--scope', 'project']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Windsurf has the scopes user, not "project"/);
  });
});

describe('Windows (--platform win32)', () => {
  test('files under APPDATA and the home; npx run through cmd /c', async () => {
    const m = machine();
    const expected = { command: 'cmd', args: ['/c', 'npx', '-y', '@acme/weather-mcp'], env: { K: 'v' } };
    const files: Array<[string, string[], string, string[]]> = [
      ['claude-desktop', [], join(m.appData, 'Claude', 'claude_desktop_config.json'), ['mcpServers']],
      ['vscode', ['--scope', 'user'], join(m.appData, 'Code', 'User', 'mcp.json'), ['servers']],
      ['cursor', [], join(m.home, '.cursor', 'mcp.json'), ['mcpServers']],
      ['windsurf', [], join(m.home, '.codeium', 'windsurf', 'mcp_config.json'), ['mcpServers']],
      ['claude-code', ['--scope', 'user'], join(m.home, '.claude.json'), ['mcpServers']],
    ];
    for (const [host, args, file, path] of files) {
      const r = await installed(m, [host, 'npx -y @acme/weather-mcp', '--env', 'K=v', '--platform', 'win32', ...args]);
      assert.match(r.stdout, /cmd \/c/, host);
      const entry = at(readJson(file), [...path, 'weather-mcp']) as Record<string, unknown>;
      assert.deepEqual({ ...entry, type: undefined }, { ...expected, type: undefined }, host);
    }
  });

  test('npx stays npx for Linux and macOS', async () => {
    const m = machine();
    const r = await installed(m, ['--print', 'npx -y @acme/weather-mcp', '--platform', 'darwin']);
    assert.deepEqual(JSON.parse(r.stdout), { 'weather-mcp': { command: 'npx', args: ['-y', '@acme/weather-mcp'] } });
  });
});

describe('URLs (Streamable HTTP servers)', () => {
  const url = 'http://127.0.0.1:3901/mcp';
  const cases: Array<[string, string[], string, string[], Record<string, string>]> = [
    ['claude-code', [], '.claude.json', ['mcpServers'], { type: 'http', url }],
    ['cursor', [], join('.cursor', 'mcp.json'), ['mcpServers'], { url }],
    ['windsurf', [], join('.codeium', 'windsurf', 'mcp_config.json'), ['mcpServers'], { serverUrl: url }],
  ];
  for (const [host, _args, file, path, entry] of cases) {
    test(`${host}: ${JSON.stringify(entry)}`, async () => {
      const m = machine();
      await installed(m, [host, url, '--name', 'remote', '--scope', 'user']);
      assert.deepEqual(at(readJson(join(m.home, file)), [...path, 'remote']), entry);
    });
  }

  test('vscode: {"type":"http","url":…}', async () => {
    const m = machine();
    await installed(m, ['vscode', url]);
    assert.deepEqual(readJson(join(m.project, '.vscode', 'mcp.json')), { servers: { '127-0-0-1': { type: 'http', url } } });
  });

  test('claude-desktop refuses, with the ways round it, and writes nothing', async () => {
    const m = machine();
    const r = await install(m, ['claude-desktop', url]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /starts commands only, not URLs/);
    assert.match(r.stderr, /janus-mcp proxy --stdio --upstream http:\/\/127\.0\.0\.1:3901\/mcp/);
    assert.match(r.stderr, /mcp-remote/);
    assert.equal(existsSync(join(m.xdg, 'Claude')), false);
  });

  test('--env with a URL is a usage error', async () => {
    const m = machine();
    const r = await install(m, ['cursor', url, '--env', 'A=1']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--env sets a command’s environment/);
  });
});

describe('--print', () => {
  test('the entry of any other host, in the common shape; of a known host, in its own; nothing written', async () => {
    const m = machine();
    const server = writeStdioServer(m);
    const other = await installed(m, ['zed', 'server.mjs', '--print', '--env', 'A=1']);
    assert.deepEqual(JSON.parse(other.stdout), { 'weather-mcp': { command: 'node', args: [server], env: { A: '1' } } });
    const anyHost = await installed(m, ['--print', '--name', 'w', '--', 'node', 'server.mjs', '--verbose']);
    assert.deepEqual(JSON.parse(anyHost.stdout), { w: { command: 'node', args: [server, '--verbose'] } });
    const vscode = await installed(m, ['vscode', 'server.mjs', '--print']);
    assert.deepEqual(JSON.parse(vscode.stdout), { 'weather-mcp': { type: 'stdio', command: 'node', args: [server] } });
    assert.equal(existsSync(join(m.project, '.vscode')), false);
  });
});

describe('VS Code files are JSONC', () => {
  test('comments and trailing commas are kept, the entry added', async () => {
    const m = machine();
    writeStdioServer(m);
    const file = join(m.project, '.vscode', 'mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    const before = [
      '{',
      '  // servers for this workspace',
      '  "inputs": [],',
      '  "servers": {',
      '    /* kept */',
      '    "other": { "type": "stdio", "command": "uvx", "args": ["x"], },',
      '  },',
      '}',
      '',
    ].join('\n');
    writeFileSync(file, before);
    await installed(m, ['vscode', 'server.mjs']);
    const after = readFileSync(file, 'utf8');
    assert.ok(after.includes('// servers for this workspace') && after.includes('/* kept */'), after);
    assert.ok(after.includes('"other": { "type": "stdio", "command": "uvx", "args": ["x"], }'), after);
    const strict = after.replace(/\/\/.*|\/\*.*?\*\//g, '').replace(/,(\s*[}\]])/g, '$1');
    assert.deepEqual(Object.keys((JSON.parse(strict) as { servers: object }).servers), ['other', 'weather-mcp']);
  });

  test('comments elsewhere are not JSON: refused', async () => {
    const m = machine();
    writeStdioServer(m);
    const file = join(m.home, '.cursor', 'mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{ // no\n}\n');
    const r = await install(m, ['cursor', 'server.mjs']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is not valid JSON: expected a key in quotes, found "\/" at line 1, column 3/);
  });
});

describe('SERVER as a file', () => {
  test('a .ts file runs through npx -y tsx, said so', async () => {
    const m = machine();
    writeFileSync(join(m.project, 'tool-server.ts'), 'export {};\n');
    const r = await installed(m, ['cursor', 'tool-server.ts']);
    assert.match(r.stdout, /tsx/);
    assert.deepEqual(at(readJson(join(m.home, '.cursor', 'mcp.json')), ['mcpServers', 'tool-server']), {
      command: 'npx',
      args: ['-y', 'tsx', join(m.project, 'tool-server.ts')],
    });
  });

  test('--serve: a module exporting a server runs with janus-mcp serve, and starts', async () => {
    const m = machine();
    const file = join(m.project, 'module.mjs');
    writeServerModule(file, { hello: 'hello from the module' });
    const r = await installed(m, ['windsurf', 'module.mjs', '--serve']);
    assert.match(r.stdout, /janus-mcp is not installed where module\.mjs is/);
    const entry = at(readJson(join(m.home, '.codeium', 'windsurf', 'mcp_config.json')), ['mcpServers', 'module']);
    assert.deepEqual(entry, { command: 'node', args: [CLI_MAIN, 'serve', file] });
    const client = await startEntry(entry, m.root);
    try {
      assert.deepEqual((await client.callTool('hello')).content, [{ type: 'text', text: 'hello from the module' }]);
    } finally {
      await client.close();
    }
  });

  test('a missing file is a usage error', async () => {
    const m = machine();
    const r = await install(m, ['cursor', 'nowhere.js']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no such file: .*nowhere\.js/);
  });
});

describe('usage errors exit with 2', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['no host', [], /missing HOST/],
    ['no server', ['cursor'], /missing SERVER/],
    ['an unknown host', ['emacs', 'node x.js'], /unknown host "emacs".*--print/],
    ['an --env without =', ['cursor', 'node x.js', '--env', 'NOPE'], /--env needs KEY=VALUE/],
    ['an unknown platform', ['cursor', 'node x.js', '--platform', 'beos'], /--platform is one of linux, darwin, win32/],
    ['--serve with a command line', ['cursor', 'node x.js', '--serve'], /--serve takes a FILE/],
    ['two servers', ['cursor', 'node', 'x.js'], /unexpected argument "x.js"/],
  ];
  for (const [what, args, message] of cases) {
    test(what, async () => {
      const m = machine();
      const r = await install(m, args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /Run 'janus-mcp install --help' for usage\./);
    });
  }

  test('--help', async () => {
    const m = machine();
    const r = await installed(m, ['--help']);
    assert.match(r.stdout, /^Usage: janus-mcp install HOST SERVER/);
    assert.match(r.stdout, /claude-desktop, claude-code, cursor, vscode or windsurf/);
  });
});

describe('merging into files of every style', () => {
  const cursorFile = (home: string) => join(home, '.cursor', 'mcp.json');
  const cases: Array<[string, string, (text: string) => void]> = [
    [
      'an empty servers object',
      '{\n  "mcpServers": {}\n}\n',
      (t) => assert.equal(t, '{\n  "mcpServers": {\n    "w": {\n      "url": "http://127.0.0.1:1/mcp"\n    }\n  }\n}\n'),
    ],
    ['an empty file', '', (t) => assert.deepEqual(JSON.parse(t), { mcpServers: { w: { url: 'http://127.0.0.1:1/mcp' } } })],
    [
      'one line',
      '{"a":1,"mcpServers":{"x":{"url":"http://x/"}}}',
      (t) => assert.equal(t, '{"a":1,"mcpServers":{"x":{"url":"http://x/"}, "w": {"url":"http://127.0.0.1:1/mcp"}}}'),
    ],
    [
      'CRLF line ends and tabs',
      '{\r\n\t"mcpServers": {\r\n\t\t"x": {}\r\n\t}\r\n}\r\n',
      (t) =>
        assert.equal(
          t,
          '{\r\n\t"mcpServers": {\r\n\t\t"x": {},\r\n\t\t"w": {\r\n\t\t\t"url": "http://127.0.0.1:1/mcp"\r\n\t\t}\r\n\t}\r\n}\r\n',
        ),
    ],
    [
      'no servers key yet',
      '{\n  "theme": "dark"\n}\n',
      (t) =>
        assert.equal(t, '{\n  "theme": "dark",\n  "mcpServers": {\n    "w": {\n      "url": "http://127.0.0.1:1/mcp"\n    }\n  }\n}\n'),
    ],
  ];
  for (const [what, before, check] of cases) {
    test(what, async () => {
      const m = machine();
      mkdirSync(join(m.home, '.cursor'), { recursive: true });
      writeFileSync(cursorFile(m.home), before);
      await installed(m, ['cursor', 'http://127.0.0.1:1/mcp', '--name', 'w']);
      check(readFileSync(cursorFile(m.home), 'utf8'));
    });
  }

  for (const [what, text, message] of [
    ['a list at the top', '[]', /is not a JSON object at the top level/],
    ['servers that are not an object', '{ "mcpServers": [] }', /mcpServers is not a JSON object/],
  ] as const) {
    test(`${what}: refused, left alone`, async () => {
      const m = machine();
      mkdirSync(join(m.home, '.cursor'), { recursive: true });
      writeFileSync(cursorFile(m.home), text);
      const r = await install(m, ['cursor', 'http://127.0.0.1:1/mcp']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, message);
      assert.equal(readFileSync(cursorFile(m.home), 'utf8'), text);
    });
  }

  test('a linked file is written through the link, its mode kept; no temporary file is left', async () => {
    const m = machine();
    const dotfiles = join(m.root, 'dotfiles');
    mkdirSync(dotfiles);
    mkdirSync(join(m.home, '.cursor'));
    const real = join(dotfiles, 'cursor-mcp.json');
    writeFileSync(real, '{}\n', { mode: 0o600 });
    symlinkSync(real, cursorFile(m.home));
    await installed(m, ['cursor', 'http://127.0.0.1:1/mcp', '--name', 'w']);
    assert.ok(lstatSync(cursorFile(m.home)).isSymbolicLink());
    assert.deepEqual(readJson(real), { mcpServers: { w: { url: 'http://127.0.0.1:1/mcp' } } });
    assert.equal(statSync(real).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dotfiles), ['cursor-mcp.json']);
  });
});

describe('text that looks like what it is not', () => {
  test('a byte order mark is kept; "//" and "/*" inside JSONC strings are strings', async () => {
    const m = machine();
    writeStdioServer(m);
    const file = join(m.project, '.vscode', 'mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    const line = '"other": { "type": "http", "url": "http://a//b/*c*/" } // a comment';
    writeFileSync(file, `\uFEFF{\n  "servers": {\n    ${line}\n  }\n}\n`);
    await installed(m, ['vscode', 'server.mjs']);
    const after = readFileSync(file, 'utf8');
    assert.ok(after.startsWith('\uFEFF{\n'), after);
    assert.ok(after.includes(`    ${line.replace(' // a comment', '')},\n    "weather-mcp": {`), after);
    assert.ok(after.includes('// a comment'), after);
  });

  test('package runners name the entry after their package', async () => {
    const m = machine();
    for (const [line, name] of [
      ['uvx weather-server', 'weather-server'],
      ['npx -y @acme/weather-mcp@2.1.0', 'weather-mcp'],
      ['docker run -i --rm acme/weather', 'docker'],
    ]) {
      const r = await installed(m, ['--print', line!]);
      assert.deepEqual(Object.keys(JSON.parse(r.stdout) as object), [name], line);
    }
  });
});

describe('a command whose script is not here', () => {
  test('is written as given, named after the script, with a note that the host looks for it in its own folder', async () => {
    const m = machine();
    const r = await installed(m, ['cursor', 'node build/missing.js --verbose']);
    assert.deepEqual(at(readJson(join(m.home, '.cursor', 'mcp.json')), ['mcpServers', 'missing']), {
      command: 'node',
      args: ['build/missing.js', '--verbose'],
    });
    assert.match(
      r.stdout,
      /build\/missing\.js is not a file in .*: it is written as given, and the host will look for it in its own folder/,
    );
  });
});
