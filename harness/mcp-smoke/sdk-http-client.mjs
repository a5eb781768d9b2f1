// A real MCP client over Streamable HTTP: the official TypeScript SDK's Client and
// StreamableHTTPClientTransport, driven against a DelegateOS proxy URL (issue 18 smoke).
//
// usage: node sdk-http-client.mjs URL ENVELOPE_JSON
//
// Initializes, lists the tools, makes one tools/call the token allows (echo) and one it does
// not (get-sum), each carrying `_delegateos` = ENVELOPE_JSON, then ends the session (DELETE).
// Prints one JSON object: {tools, allowed, denied, sessionId}; `allowed` is the call result,
// `denied` the JSON-RPC error {code, message, data}. Exits 0 when it could talk to the proxy
// (the Rust test judges the answers), 1 otherwise.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, envelopeJson] = process.argv.slice(2);
if (!url || !envelopeJson) {
  console.error("usage: node sdk-http-client.mjs URL ENVELOPE_JSON");
  process.exit(64);
}
const envelope = JSON.parse(envelopeJson);

// `client.request` sends params as given, so `_delegateos` reaches the proxy (callTool's
// typed helper would build params itself).
async function call(client, name, args) {
  try {
    const result = await client.request(
      { method: "tools/call", params: { name, arguments: args, _delegateos: envelope } },
      CallToolResultSchema,
    );
    return { result };
  } catch (e) {
    return { error: { code: e.code, message: e.message, data: e.data ?? null } };
  }
}

const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "delegateos-sdk-smoke", version: "1.0.0" });
try {
  await client.connect(transport);
  const listed = await client.listTools();
  const allowed = await call(client, "echo", { message: "hi over http" });
  const denied = await call(client, "get-sum", { a: 1, b: 2 });
  const sessionId = transport.sessionId ?? null;
  await transport.terminateSession();
  await client.close();
  console.log(
    JSON.stringify({
      tools: listed.tools.map((t) => t.name),
      allowed,
      denied,
      sessionId,
    }),
  );
  process.exit(0);
} catch (e) {
  console.error(`sdk-http-client: ${e?.stack ?? e}`);
  process.exit(1);
}
