// Connects to the agent interface with the official MCP TypeScript SDK, as agent hosts do,
// lists the tools, verifies one real Weesp address, sends a batch the tool refuses, looks up
// and verifies two more, and prints what it saw as one JSON line.
// Usage: node client.mjs <url of /mcp>; with ADRESWIJZER_BEARER set it sends that credential,
// as an agent host sends the API key it was configured with. The Go tests TestTypeScriptClient
// (worker/mcpserver, straight at a worker) and the gateway's agent test (through the gateway) run it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: node client.mjs <url of /mcp>");
  process.exit(2);
}

const client = new Client({ name: "adreswijzer-e2e", version: "1.0.0" });
const bearer = process.env.ADRESWIJZER_BEARER;
const transport = new StreamableHTTPClientTransport(new URL(url), bearer
  ? { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }
  : undefined);
await client.connect(transport);

const { tools } = await client.listTools();
// The SDK checks structuredContent against the tool's output schema and throws when it
// does not conform.
const result = await client.callTool({
  name: "verify_address",
  arguments: { address: "Achtergracht 1, 1381 BK Weesp", lang: "en" },
});
const refused = await client.callTool({
  name: "verify_addresses_batch",
  arguments: { addresses: Array.from({ length: 101 }, (_, i) => ({ id: String(i), address: "Achtergracht 1, 1381 BK Weesp" })) },
});
// Two more verifications: served by a worker; through a gateway whose plan allows two, the
// last is the quota's refusal, which must reach the model as a tool result (the SDK checks
// its structured content against the output schema, on errors too), not as a thrown
// transport error.
const second = await client.callTool({
  name: "lookup_address",
  arguments: { country: "NL", postcode: "1381 CS", houseNumber: 16 },
});
const third = await client.callTool({
  name: "verify_address",
  arguments: { address: "Hugo de Grootlaan 16 ben, 1381 CS Weesp" },
});

console.log(JSON.stringify({
  protocolVersion: transport.protocolVersion ?? null,
  server: client.getServerVersion(),
  instructions: client.getInstructions() ?? "",
  tools: tools.map((t) => ({ name: t.name, input: t.inputSchema, output: t.outputSchema ?? null })),
  result,
  refused,
  second,
  third,
}));
await client.close();
