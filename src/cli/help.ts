/** `--help` of the command and of each verb (docs/cli.md says the same at length). */

const CONNECTING = `  --header NAME:VALUE       an HTTP header on every request (repeatable)
  --protocol-version V      use this revision, without detecting the era
  --era legacy|modern       skip the era probe
  --timeout SECONDS         per request (default 60; progress restarts it)`;

const TARGET = 'TARGET is a URL (Streamable HTTP, or HTTP+SSE) or a command line started over stdio, in quotes.';

export const HELP: Record<string, string> = {
  '': `Usage: janus-mcp VERB [options]

MCP from the command line, for servers of every revision (2024-11-05 to 2026-07-28).

Verbs:
  discover TARGET                        the server's era, version, capabilities, info
  list TARGET [tools|prompts|resources|templates]
                                         what the server offers
  call TARGET TOOL [JSON] [--arg k=v]…   call a tool, answering the server's questions
  serve FILE [--http HOST:PORT]          serve a module's Janus server (stdio by default)
  dev FILE [--http HOST:PORT]            the same, reloading it when the file changes
  proxy [--port P | --stdio] [--root DIR]… (--upstream URL | -- COMMAND ARGS…)
                                         serve one server to clients of every revision
  install HOST SERVER [--name N] [--env K=V]…
                                         add a server to a host's MCP config file

Options:
  -h, --help       this help; janus-mcp VERB --help for a verb's
  -v, --version    the version

${TARGET}
Exit codes: 0 success, 1 the call or the tool failed, 2 a usage error.`,

  discover: `Usage: janus-mcp discover TARGET [options]

Connects, detects the era and prints what the server says of itself: era, protocol version,
transport, server info, capabilities and instructions.

Options:
  --json                    the same as JSON
${CONNECTING}

${TARGET}`,

  list: `Usage: janus-mcp list TARGET [tools|prompts|resources|templates] [options]

Lists the server's tools (default), prompts, resources or resource templates, every page.

Options:
  --json                    the list result as JSON ({"tools": […]}, {"resourceTemplates": […]} …)
${CONNECTING}

${TARGET}`,

  call: `Usage: janus-mcp call TARGET TOOL [JSON] [--arg key=value]… [options]

Calls a tool and prints its result (text as it is; --json for the whole result). Arguments
come as one JSON object, or as --arg key=value, or both (--arg wins). An --arg value is typed
by the tool's input schema (a string property gets the text as typed); where the schema does
not say, it is read as JSON when it parses, else as a string.

Options:
  --arg key=value           one argument (repeatable)
  --json                    the raw CallToolResult as JSON
  --answers FILE            answer elicitation from a JSON file: an object of field values,
                            or a list with one answer per request ({"action": "decline"} …)
  --no-input                decline every elicitation
  --sampler CMD             answer sampling with CMD: the request as JSON on its stdin, its
                            stdout the reply text (or a CreateMessageResult as JSON)
  --log-level LEVEL         print the server's log messages from LEVEL up on stderr
${CONNECTING}

Without --answers or --no-input, elicitation is asked in the terminal when stdin is one, and
declined otherwise. Progress goes to stderr (a bar on a terminal).

${TARGET}
Exit codes: 0 success, 1 a tool error (isError) or a failed call, 2 a usage error.`,

  serve: `Usage: janus-mcp serve FILE [--http HOST:PORT]

Imports FILE (a JavaScript module) and serves the Janus server it exports as default, or as
\`server\` (or a function returning one): over stdio, or over Streamable HTTP with --http
(127.0.0.1:0 picks a free port; the URL is printed on stderr). On stdio, stdout carries
protocol only: what the module prints goes to stderr. A .ts file is loaded through the
project's tsx when Node cannot load it. SIGINT or SIGTERM ends it.`,

  dev: `Usage: janus-mcp dev FILE [--http HOST:PORT]

As serve, and when FILE changes it is imported again and the running server's tools,
prompts, resources and templates are replaced by the new ones: clients stay connected and
are told the lists changed. Modules FILE imports are not reloaded.`,

  proxy: `Usage: janus-mcp proxy [--port P | --stdio] [--host H] [--root DIR]… [--continuation-timeout SECONDS]
                       (--upstream URL | -- COMMAND ARGS…)

Serves one upstream server (a URL, or a command over stdio) to clients of every revision,
over Streamable HTTP (default: 127.0.0.1 on a free port, printed on stderr) or stdio.

Options:
  --port P                  the HTTP port
  --host H                  the HTTP host (default 127.0.0.1)
  --stdio                   serve on stdin/stdout instead
  --upstream URL            the upstream server's URL
  --root DIR                a root of the proxy's own (a path or file:// URI; repeatable): the
                            answer to the upstream's roots/list when no client call is in
                            flight to ask (default: none, an empty list)
  --continuation-timeout SECONDS
                            how long a 2026-07-28 client's input_required round waits for
                            its retry before its upstream call is cancelled (default 600)
  -- COMMAND ARGS…          the upstream server's command line
${CONNECTING.replace(/an HTTP header on every request/, 'an HTTP header on every upstream request')}`,

  install: `Usage: janus-mcp install HOST SERVER [options]
       janus-mcp install HOST [options] -- COMMAND ARGS…
       janus-mcp install [HOST] SERVER --print

Adds a server to a host's MCP config file, merged with the servers and settings already there
(an entry of the same name is refused without --force; a file that is not JSON is refused).
HOST is claude-desktop, claude-code, cursor, vscode or windsurf.

SERVER is a command line in quotes ("node dist/server.js"; paths that exist are made absolute),
a file (x.js runs as node /abs/x.js, x.ts as npx -y tsx /abs/x.ts), or the URL of a Streamable
HTTP server (not for claude-desktop). On Windows, npx is written as cmd /c npx.

Options:
  --name N                  the entry's name (default: the package.json name, or the file's)
  --env KEY=VALUE           an environment variable of the server (repeatable)
  --serve                   FILE exports a Janus server: run it with janus-mcp serve
  --scope S                 claude-code: local (default), project or user;
                            cursor: user (default) or project; vscode: workspace (default) or user
  --project DIR             the project folder of project, workspace and local scopes (default: .)
  --force                   replace an entry of the same name
  --dry-run                 print the file's path and its new content, write nothing
  --print                   print the entry as JSON, for any host, write nothing
  --platform P              write for linux, darwin or win32 (default: this machine's)

Files are found from HOME (USERPROFILE on Windows), APPDATA on Windows and XDG_CONFIG_HOME on
Linux. See docs/hosts.md for each host's file and where it shows a server's logs.`,
};
