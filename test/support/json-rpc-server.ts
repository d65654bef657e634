/**
 * A local JSON-RPC 2.0 server over HTTP for the specs that talk to a Solana node (the rpc chain
 * gateway, /swap's simulation, LOOKUP_TABLES ingestion). Every request goes to `answer`: what it
 * returns is the `result`; an Error becomes a JSON-RPC error (its `code`, else -32005 as a node
 * that is behind answers, and its message); undefined becomes -32601 "Method not found".
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

export interface JsonRpcCall {
  method: string;
  params: unknown[];
  /** the Authorization header, when the client sent one */
  auth: string | undefined;
}

export interface JsonRpcServer {
  url: string;
  close(): Promise<void>;
}

export async function startJsonRpcServer(answer: (call: JsonRpcCall) => unknown): Promise<JsonRpcServer> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = JSON.parse(body);
      const result = answer({ method: r.method, params: r.params ?? [], auth: req.headers.authorization });
      const error =
        result instanceof Error
          ? { code: (result as Error & { code?: number }).code ?? -32005, message: result.message }
          : result === undefined
            ? { code: -32601, message: 'Method not found' }
            : null;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(error ? { jsonrpc: '2.0', id: r.id, error } : { jsonrpc: '2.0', id: r.id, result }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
