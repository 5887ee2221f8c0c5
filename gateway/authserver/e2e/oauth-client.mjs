// Signs in to the agent interface with the official MCP TypeScript SDK's OAuth client, as an
// agent host does: the SDK finds the authorization server from the 401, registers itself
// (RFC 7591), and hands over the authorization URL, which this script prints as a JSON line
// {"authorize": url} for the test to open in a browser. It then waits for the browser on a
// loopback listener (RFC 8252), lets the SDK exchange the code, lists the tools and verifies
// one real Weesp address, and prints {"tools": [...], "result": {...}}. A refused consent
// prints {"denied": {...}}. Then, for every line "again" on its standard input, it calls the
// tool once more and prints {"again": result} or {"again": {"error": message}}.
// Usage: node oauth-client.mjs <url of /mcp> <loopback port>
import http from "node:http";
import readline from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [url, port] = process.argv.slice(2);
if (!url || !port) {
  console.error("usage: node oauth-client.mjs <url of /mcp> <loopback port>");
  process.exit(2);
}
const redirectUrl = `http://127.0.0.1:${port}/callback`;
const print = (v) => console.log(JSON.stringify(v));

// The provider keeps what a host would keep: the registration, the tokens, the verifier.
class Provider {
  constructor() { this.client = undefined; this.saved = undefined; this.verifier = undefined; }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: "Adreswijzer e2e (TypeScript SDK)",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  redirectToAuthorization(authorizationUrl) { print({ authorize: authorizationUrl.href }); }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

// callback waits for the browser's one visit to the redirect URI.
function callback() {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      const q = new URL(req.url, redirectUrl).searchParams;
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>Agent</title><p>You can close this window.</p>");
      server.close();
      resolve(Object.fromEntries(q));
    });
    server.listen(Number(port), "127.0.0.1");
  });
}

const provider = new Provider();
const connect = async () => {
  const client = new Client({ name: "adreswijzer-oauth-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
};
const verify = (client) => client.callTool({ name: "verify_address", arguments: { address: "Achtergracht 1, 1381 BK Weesp", lang: "en" } });

let session;
const answer = callback();
try {
  session = await connect();
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
  const q = await answer;
  if (q.error) {
    print({ denied: q });
    process.exit(0);
  }
  if (q.iss !== new URL(url).origin) throw new Error(`answer from issuer ${q.iss}`);
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await transport.finishAuth(q.code);
  session = await connect();
}
const { tools } = await session.client.listTools();
print({ tools: tools.map((t) => t.name), result: await verify(session.client), tokenType: provider.saved?.token_type ?? null });

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line.trim() !== "again") continue;
  try {
    print({ again: await verify(session.client) });
  } catch (e) {
    print({ again: { error: String(e?.message ?? e) } });
  }
}
