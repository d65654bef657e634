import type { IncomingMessage } from 'http';
import { clientAddress } from './client-address';

const req = (remote: string, xff?: string): IncomingMessage => ({ socket: { remoteAddress: remote }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  const trusted = new Set(['10.0.0.1', '10.0.0.2']);

  it('is the remote address when it is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientAddress(req('203.0.113.9', '1.2.3.4'), trusted)).toBe('203.0.113.9');
    expect(clientAddress(req('::ffff:203.0.113.9'), trusted)).toBe('203.0.113.9');
  });

  it('behind trusted proxies: the nearest forwarded address that is not one', () => {
    expect(clientAddress(req('10.0.0.1', '198.51.100.7'), trusted)).toBe('198.51.100.7');
    // a client-supplied first entry is ignored: the trusted proxy appended the real one
    expect(clientAddress(req('10.0.0.1', '1.1.1.1, 198.51.100.7, 10.0.0.2'), trusted)).toBe('198.51.100.7');
    expect(clientAddress(req('::ffff:10.0.0.1', '10.0.0.2'), trusted)).toBe('10.0.0.2');
    expect(clientAddress(req('10.0.0.1'), trusted)).toBe('10.0.0.1');
  });
});
