/**
 * A minimal MCP Apps host for the browser (JavaScript: the repository's type-check has no DOM), built on the official SDKs: the MCP `Client` talks
 * to the server over Streamable HTTP, and `AppBridge` connects it to the UI in a sandboxed
 * iframe. It plays what a chat host does when the model calls a tool that has a UI: read the
 * tool's UI resource, render it, send it the call's arguments and result, and forward the
 * UI's own tool calls to the server. `window.host` reports what happened, for the test.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, getToolUiResourceUri, PostMessageTransport, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';

/**
 * What the host did, in order ("initialized", "tools/call add_todo", …), and `error` when
 * something failed (the test prints it).
 * @type {{ events: string[], error?: string }}
 */
const report = { events: [] };
window.host = report;

async function main() {
  const query = new URLSearchParams(location.search);
  const toolName = query.get('tool') ?? '';
  const args = JSON.parse(query.get('args') ?? '{}');

  // Same origin as this page: the test's server passes /mcp on to the MCP server.
  const client = new Client({ name: 'browser-test-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  report.events.push(`connected ${client.getServerVersion()?.name}`);

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  if (tool === undefined) throw new Error(`the server has no tool ${toolName}`);
  const uri = getToolUiResourceUri(tool);
  if (uri === undefined) throw new Error(`${toolName} has no UI`);
  const [content] = (await client.readResource({ uri })).contents;
  if (content === undefined || !('text' in content) || content.mimeType !== RESOURCE_MIME_TYPE) {
    throw new Error(`${uri} is not one ${RESOURCE_MIME_TYPE} text`);
  }
  report.events.push(`read ${uri}`);

  // An opaque origin (no allow-same-origin) and a policy that admits nothing from outside
  // the page: the UI must bring everything inline, and reach the server only through us.
  const policy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'";
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
  iframe.title = tool.title ?? tool.name;
  document.body.append(iframe);

  const bridge = new AppBridge(client, { name: 'browser-test-host', version: '1.0.0' }, { serverTools: {}, logging: {} });
  bridge.oninitialized = () => {
    report.events.push('initialized');
    void (async () => {
      await bridge.sendToolInput({ arguments: args });
      const result = await client.callTool({ name: toolName, arguments: args });
      report.events.push(`called ${toolName}`);
      await bridge.sendToolResult(result);
    })().catch(fail);
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  // Before the page loads, so that the UI's first message finds the bridge listening.
  const transport = new PostMessageTransport(iframe.contentWindow, iframe.contentWindow);
  await bridge.connect(transport);
  // The bridge forwards the UI's tool calls to the client itself; note each one on its way in.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'tools/call') report.events.push(`tools/call ${message.params?.name}`);
    deliver?.(message, extra);
  };
  iframe.srcdoc = content.text.replace(/<head>/i, `<head><meta http-equiv="Content-Security-Policy" content="${policy}">`);
}

/** @param {unknown} error */
function fail(error) {
  report.error = error instanceof Error ? `${error.message}\n${error.stack}` : String(error);
}

main().catch(fail);
