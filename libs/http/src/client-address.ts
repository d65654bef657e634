/**
 * The client address a request counts under when no API key names it: the connection's remote
 * address, or, when that is a trusted proxy (TRUSTED_PROXIES), the nearest address in
 * `X-Forwarded-For` that is not one. A client can put anything in that header: only what a
 * trusted proxy appended is believed.
 */
import type { IncomingMessage } from 'http';

/** an IPv4 address as Node reports it on a dual-stack socket (::ffff:1.2.3.4) in its plain form */
export function plainAddress(a: string): string {
  const t = a.trim().toLowerCase();
  return t.startsWith('::ffff:') && t.includes('.') ? t.slice(7) : t;
}

export function clientAddress(req: IncomingMessage, trusted: ReadonlySet<string>): string {
  const remote = plainAddress(req.socket.remoteAddress ?? 'unknown');
  if (!trusted.has(remote)) return remote;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map(plainAddress)
    .filter((h) => h.length > 0);
  // from the nearest hop outwards: the first one not a trusted proxy is the client
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted.has(hops[i])) return hops[i];
  return hops[0] ?? remote;
}
