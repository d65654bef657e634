/**
 * Clients for the access suites: a raw HTTP request (any request target, from any loopback
 * address, with headers), a stream upgrade (opened, or the status and body it was refused with),
 * and keys made through the keys CLI's own command on a suite's log.
 */
import * as http from 'node:http';
import WebSocket from 'ws';
import { keysCommand } from '../../apps/cli/src/keys';
import { loadConfig } from '@app/config';
import type { LogPort } from '@app/log';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** a request with this exact target (origin or absolute form, spelled as given) */
export function rawRequest(port: number, method: string, target: string, headers: http.OutgoingHttpHeaders = {}, from = '127.0.0.1', body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, method, localAddress: from, headers: { ...headers, connection: 'close' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = text.length > 0 ? JSON.parse(text) : null;
        } catch {
          /* not JSON: the text as it is */
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const bearer = (key: string): http.OutgoingHttpHeaders => ({ authorization: `Bearer ${key}` });

export type UpgradeResult = { open: true; ws: WebSocket } | { open: false; status: number; headers: http.IncomingHttpHeaders; body: any };

/** the stream's upgrade: open (the caller closes it), or the HTTP answer it was refused with */
export function upgrade(port: number, query = '', headers: Record<string, string> = {}, from = '127.0.0.1'): Promise<UpgradeResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/stream${query}`, { headers, localAddress: from });
    ws.once('open', () => resolve({ open: true, ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ open: false, status: res.statusCode!, headers: res.headers, body: JSON.parse(body) }));
    });
    ws.once('error', reject);
  });
}

/** the JSON lines `npm run -s keys -- <argv>` prints, run in-process on `log` */
export async function keys(log: LogPort, argv: string[], env: Record<string, string> = {}): Promise<any[]> {
  const out: object[] = [];
  await keysCommand(argv, loadConfig(env), log, (o) => out.push(o));
  return out;
}
