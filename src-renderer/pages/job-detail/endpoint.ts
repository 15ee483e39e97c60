/**
 * How to use a running llmserver: copyable `curl` and `ollama` commands for its URL and model.
 * A rented machine sits behind the marketplace's proxy, which wants its token (kept in a 0600
 * file whose path the job records) and may speak TLS with a self-signed certificate.
 */
export type EndpointInfo = { backendUrl: string; model: string | null; tokenFile: string | null };

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'"'"'`)}'`;
}

export function curlExample({ backendUrl, model, tokenFile }: EndpointInfo): string {
  const url = backendUrl.replace(/\/+$/, '');
  const insecure = url.startsWith('https://') && tokenFile ? ' -k' : '';
  const auth = tokenFile ? ` \\\n  -H "Authorization: Bearer $(cat ${shellQuote(tokenFile)})"` : '';
  if (!model) return `curl${insecure} ${url}/api/tags${auth}`;
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello in five words.' }], stream: false });
  return `curl${insecure} ${url}/api/chat${auth} \\\n  -d ${shellQuote(body)}`;
}

/** The ollama CLI talks to OLLAMA_HOST; it cannot send the proxy's token, so a proxied machine gets none. */
export function ollamaExample({ backendUrl, model, tokenFile }: EndpointInfo): string | null {
  if (tokenFile) return null;
  const url = backendUrl.replace(/\/+$/, '');
  return model ? `OLLAMA_HOST=${shellQuote(url)} ollama run ${shellQuote(model)}` : `OLLAMA_HOST=${shellQuote(url)} ollama list`;
}
