// Sends the credential in ADRESWIJZER_BEARER with every request, the way an agent host sends
// the API key it was configured with. Loaded with `node --import` in front of
// worker/agent/e2e/client.mjs, which takes only the URL of /mcp.
const credential = process.env.ADRESWIJZER_BEARER;
if (!credential) {
  throw new Error("ADRESWIJZER_BEARER is not set");
}
const fetchWithoutCredential = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has("authorization")) {
    headers.set("authorization", `Bearer ${credential}`);
  }
  return fetchWithoutCredential(input, { ...init, headers });
};
