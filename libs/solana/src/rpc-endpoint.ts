/**
 * Where a Solana RPC provider is reached and how it takes the key (RPC_URL, RPC_WS_URL, RPC_KEY),
 * and what a failed JSON-RPC call was, for every part that talks to a node (the rpc ingest source,
 * the rpc chain gateway).
 *
 *  - RPC_URL is a comma list (the first primary, the others fail over); RPC_WS_URL, or, unset,
 *    each HTTP URL with http→ws, https→wss and an explicit port + 1 (the rule of Solana
 *    validators), is the PubSub endpoint of the same index.
 *  - RPC_KEY: when the URL carries a query parameter with an empty value (`?api-key=`), the key
 *    becomes its value (providers that take the key in the URL); otherwise it is sent as
 *    `Authorization: Bearer <key>`. The same rule applies to the WebSocket URL.
 */

export interface RpcEndpoint {
  httpUrl: string;
  wsUrl: string;
  /** headers for both (the Bearer key when the URL does not carry it) */
  headers: Record<string, string>;
}

/** Put `key` where the URL asks for it (an empty query parameter), or null when it goes in a header. */
export function keyInUrl(url: string, key: string): string | null {
  const u = new URL(url);
  for (const [name, value] of u.searchParams) {
    if (value === '') {
      u.searchParams.set(name, key);
      return u.toString();
    }
  }
  return null;
}

/** The PubSub URL of a node's HTTP URL: http→ws, https→wss, an explicit port + 1. */
export function deriveWsUrl(httpUrl: string): string {
  const u = new URL(httpUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  if (u.port !== '') u.port = String(Number(u.port) + 1);
  return u.toString();
}

/** The endpoints of RPC_URL (list), RPC_WS_URL (list, optional) and RPC_KEY. */
export function rpcEndpoints(httpUrls: readonly string[], wsUrls: readonly string[], key: string | null): RpcEndpoint[] {
  return httpUrls.map((http, i): RpcEndpoint => {
    const ws = wsUrls[i] ?? wsUrls[0] ?? deriveWsUrl(http);
    if (key === null) return { httpUrl: http, wsUrl: ws, headers: {} };
    const httpWithKey = keyInUrl(http, key);
    const wsWithKey = keyInUrl(ws, key);
    return {
      httpUrl: httpWithKey ?? http,
      wsUrl: wsWithKey ?? ws,
      headers: httpWithKey === null ? { Authorization: `Bearer ${key}` } : {},
    };
  });
}

/** what a failed request was: drives the retry and the counters */
export function classifyRpcError(e: unknown): 'auth' | 'rate-limited' | 'server' | 'min-context-slot' | 'unreachable' | 'malformed' {
  const err = e as { message?: string; code?: number };
  const m = String(err?.message ?? e);
  const status = /(?:^|Error: )(\d{3}) [A-Z]/.exec(m);
  if (status) {
    const s = Number(status[1]);
    if (s === 401 || s === 403) return 'auth';
    if (s === 429) return 'rate-limited';
    if (s >= 500) return 'server';
    return 'malformed';
  }
  if (err?.code === -32016 || /minimum context slot/i.test(m)) return 'min-context-slot';
  if (err?.code === 429 || /too many requests|rate limit/i.test(m)) return 'rate-limited';
  if (/fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|socket hang up|network/i.test(m)) return 'unreachable';
  return 'malformed';
}
