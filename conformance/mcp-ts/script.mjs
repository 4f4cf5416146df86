// Drives the hoop Sidecar's MCP server with the official TypeScript SDK client.
//
//   node script.mjs <mcp-url> <approval-id>
//
// The approval must stay PENDING for the run. It prints one JSON object on
// stdout (what the Go test in this folder checks) and exits non-zero on an
// unexpected failure:
//   - tools:   the names listTools returned (six are expected)
//   - status:  the approval_status answer
//   - wait:    an approval_wait of 12 s, called with a 5 s request timeout and
//              resetTimeoutOnProgress, so only the progress notifications keep
//              it alive; progress counts them
//   - control: the same wait without resetTimeoutOnProgress, which must time
//              out after 5 s (it shows the progress is what kept `wait` alive)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, id] = process.argv.slice(2);
if (!url || !id) {
  console.error('usage: node script.mjs <mcp-url> <approval-id>');
  process.exit(2);
}

function parse(result) {
  const text = result.content?.[0]?.text ?? '';
  let json = null;
  try { json = JSON.parse(text); } catch { /* error answers are prose */ }
  return { isError: result.isError === true, text, json };
}

const client = new Client({ name: 'hoop-conformance-ts', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);

const out = { protocolVersion: transport.protocolVersion ?? null };
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
out.status = parse(await client.callTool({ name: 'approval_status', arguments: { id } }));

let progress = 0;
let started = Date.now();
const wait = await client.callTool(
  { name: 'approval_wait', arguments: { id, timeout_seconds: 12 } },
  undefined,
  { timeout: 5000, resetTimeoutOnProgress: true, onprogress: () => { progress++; } },
);
out.wait = { ...parse(wait), progress, elapsedMs: Date.now() - started };

started = Date.now();
try {
  await client.callTool(
    { name: 'approval_wait', arguments: { id, timeout_seconds: 12 } },
    undefined,
    { timeout: 5000, onprogress: () => {} },
  );
  out.control = { timedOut: false, elapsedMs: Date.now() - started };
} catch (err) {
  out.control = { timedOut: true, code: err.code ?? null, message: String(err.message), elapsedMs: Date.now() - started };
}

await client.close();
console.log(JSON.stringify(out));
