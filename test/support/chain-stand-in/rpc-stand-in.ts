/**
 * Test stand-in of a Solana RPC node serving a MarketChain (no real node can run here). It speaks
 * the real wire formats, on one 127.0.0.1 port:
 *
 *  - JSON-RPC 2.0 over HTTP POST (single or batch): getSlot, getHealth, getVersion,
 *    getLatestBlockhash, getAccountInfo, getMultipleAccounts, getProgramAccounts (filters dataSize /
 *    memcmp with base58 or base64 bytes, withContext), getTokenAccountsByOwner ({mint} or
 *    {programId}); answers `{jsonrpc, id, result: {context: {slot}, value}}`, account data as
 *    `[base64, "base64"]`, `minContextSlot` refused with -32016 while the chain is behind it;
 *  - the Solana PubSub WebSocket (an upgrade of the same port): programSubscribe, accountSubscribe,
 *    slotSubscribe and their unsubscribes, answered with subscription ids, then
 *    programNotification / accountNotification / slotNotification messages.
 *
 * Faults for tests: `faults.status` answers the next N HTTP requests with a status (429, 503),
 * `dropSockets()` cuts every WebSocket, `sendStale()` notifies an old write, `sendRaw()` sends any
 * text. `key` makes it a node that wants `Authorization: Bearer <key>` or `?api-key=<key>`
 * (401 otherwise). `requests` counts the HTTP calls by method.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { WebSocketServer, type WebSocket } from 'ws';
import { base58Decode } from '@app/solana';
import type { ChainAccount, ChainAccountChange, MarketChain } from './market-chain';

export interface RpcStandInOptions {
  /** the node wants this key (Bearer header or api-key query parameter); none: open */
  key?: string;
}

interface Filter {
  dataSize?: number;
  memcmp?: { offset: number; bytes: string; encoding?: 'base58' | 'base64' };
}

type Sub =
  | { kind: 'program'; id: number; ws: WebSocket; owner: string; filters: Filter[] }
  | { kind: 'account'; id: number; ws: WebSocket; address: string }
  | { kind: 'slot'; id: number; ws: WebSocket };

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class RpcStandIn {
  readonly requests = new Map<string, number>();
  /** the next `count` HTTP requests are answered with `code` (no JSON-RPC body) */
  readonly faults = { status: { code: 429, count: 0 } };
  /** notifications sent, by method */
  readonly notifications = new Map<string, number>();
  private readonly server: http.Server;
  private readonly wss: WebSocketServer;
  private readonly subs = new Map<number, Sub>();
  private readonly accountSubs = new Map<string, Set<Sub>>();
  private readonly programSubs = new Map<string, Set<Sub>>();
  private nextSub = 1;
  private port = 0;
  private readonly onAccount = (a: ChainAccountChange): void => this.notifyAccount(a);
  private readonly onSlot = (slot: number): void => this.notifySlot(slot);

  private constructor(
    readonly chain: MarketChain,
    private readonly opts: RpcStandInOptions,
  ) {
    this.server = http.createServer((req, res) => this.http(req, res));
    this.wss = new WebSocketServer({ noServer: true });
    this.server.on('upgrade', (req, socket, head) => {
      if (!this.authorized(req)) {
        socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.connection(ws));
    });
    chain.on('account', this.onAccount);
    chain.on('slot', this.onSlot);
  }

  static async start(chain: MarketChain, opts: RpcStandInOptions = {}): Promise<RpcStandIn> {
    const s = new RpcStandIn(chain, opts);
    await new Promise<void>((ok) => s.server.listen(0, '127.0.0.1', ok));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** HTTP requests answered so far (every method, faults included) */
  get requestCount(): number {
    let n = 0;
    for (const v of this.requests.values()) n += v;
    return n;
  }

  /** open subscriptions by kind */
  subscriptionCount(kind?: Sub['kind']): number {
    let n = 0;
    for (const s of this.subs.values()) if (kind === undefined || s.kind === kind) n++;
    return n;
  }

  async close(): Promise<void> {
    this.chain.off('account', this.onAccount);
    this.chain.off('slot', this.onSlot);
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((ok) => this.wss.close(() => ok()));
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  /** cut every WebSocket (as a provider's load balancer does) */
  dropSockets(): void {
    for (const ws of this.wss.clients) ws.terminate();
  }

  /** notify subscribers of `address` of a write at an old slot (out of order delivery) */
  sendStale(address: string, owner: string, data: Buffer, slot: number): void {
    this.notifyAccount({ address, owner, lamports: 1n, data, slot });
  }

  /** send `result` as-is to the subscriptions of a program (no filter applied) or of an account: bad notifications */
  notifyUnchecked(kind: 'program' | 'account', target: string, result: unknown): number {
    let n = 0;
    for (const s of this.subs.values()) {
      if (s.kind === 'program' && kind === 'program' && s.owner === target) this.send(s, 'programNotification', result), n++;
      if (s.kind === 'account' && kind === 'account' && s.address === target) this.send(s, 'accountNotification', result), n++;
    }
    return n;
  }

  /** send any text on every socket (malformed messages) */
  sendRaw(text: string): void {
    for (const ws of this.wss.clients) ws.send(text);
  }

  // ---- HTTP ----

  private authorized(req: http.IncomingMessage): boolean {
    const key = this.opts.key;
    if (key === undefined) return true;
    if (req.headers.authorization === `Bearer ${key}`) return true;
    return new URL(req.url ?? '/', 'http://x').searchParams.get('api-key') === key;
  }

  private count(method: string): void {
    this.requests.set(method, (this.requests.get(method) ?? 0) + 1);
  }

  private http(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (this.faults.status.count > 0) {
        this.faults.status.count--;
        this.count(`HTTP ${this.faults.status.code}`);
        res.writeHead(this.faults.status.code, { 'content-type': 'text/plain' }).end(this.faults.status.code === 429 ? 'Too Many Requests' : 'Service Unavailable');
        return;
      }
      if (!this.authorized(req)) {
        this.count('HTTP 401');
        res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const out = Array.isArray(parsed) ? parsed.map((r) => this.call(r)) : this.call(parsed);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  }

  private call(r: unknown): object {
    const { id, method, params } = (r ?? {}) as { id?: unknown; method?: unknown; params?: unknown[] };
    this.count(String(method));
    try {
      return { jsonrpc: '2.0', id, result: this.answer(String(method), Array.isArray(params) ? params : []) };
    } catch (e) {
      const err = e instanceof RpcError ? { code: e.code, message: e.message } : { code: -32603, message: (e as Error).message };
      return { jsonrpc: '2.0', id, error: err };
    }
  }

  private answer(method: string, params: unknown[]): unknown {
    const chain = this.chain;
    const slot = chain.slot;
    const config = (i: number): Record<string, unknown> => (params[i] ?? {}) as Record<string, unknown>;
    const minSlot = (c: Record<string, unknown>): void => {
      if (typeof c.minContextSlot === 'number' && c.minContextSlot > slot) {
        throw new RpcError(-32016, `Minimum context slot has not been reached`);
      }
    };
    const ctx = (value: unknown): object => ({ context: { apiVersion: '2.1.0', slot }, value });
    switch (method) {
      case 'getSlot':
        minSlot(config(0));
        return slot;
      case 'getHealth':
        return 'ok';
      case 'getVersion':
        return { 'solana-core': '2.1.0', 'feature-set': 0 };
      case 'getLatestBlockhash':
        return ctx({ blockhash: '11111111111111111111111111111111', lastValidBlockHeight: slot + 150 });
      case 'getAccountInfo': {
        minSlot(config(1));
        const a = chain.get(String(params[0]));
        return ctx(a ? wireAccount(a) : null);
      }
      case 'getMultipleAccounts': {
        minSlot(config(1));
        const keys = params[0];
        if (!Array.isArray(keys)) throw new RpcError(-32602, 'Invalid params: expected an array of keys');
        if (keys.length > 100) throw new RpcError(-32602, `Too many inputs provided; max 100`);
        return ctx(keys.map((k) => {
          const a = chain.get(String(k));
          return a ? wireAccount(a) : null;
        }));
      }
      case 'getProgramAccounts': {
        const c = config(1);
        minSlot(c);
        const filters = (c.filters ?? []) as Filter[];
        const value = chain
          .ownedBy(String(params[0]))
          .filter((a) => matches(a.data, filters))
          .map((a) => ({ pubkey: a.address, account: wireAccount(a) }));
        return c.withContext ? ctx(value) : value;
      }
      case 'getTokenAccountsByOwner': {
        minSlot(config(2));
        const owner = key(String(params[0]));
        const f = (params[1] ?? {}) as { mint?: string; programId?: string };
        const programs = f.programId ? [f.programId] : ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'];
        const mint = f.mint ? key(f.mint) : null;
        const held = owner === null ? [] : chain.tokenAccountsOf(owner);
        const value = programs
          .flatMap((p) => held.filter((a) => a.owner === p))
          .filter((a) => mint === null || Buffer.compare(a.data.subarray(0, 32), mint) === 0)
          .map((a) => ({ pubkey: a.address, account: wireAccount(a) }));
        return ctx(value);
      }
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  // ---- WebSocket ----

  private connection(ws: WebSocket): void {
    ws.on('message', (raw) => {
      let msg: { id?: unknown; method?: string; params?: unknown[] };
      try {
        msg = JSON.parse(raw.toString());
      } catch {
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const params = Array.isArray(msg.params) ? msg.params : [];
      const reply = (result: unknown): void => ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      const id = this.nextSub++;
      switch (msg.method) {
        case 'programSubscribe': {
          const c = (params[1] ?? {}) as { filters?: Filter[] };
          this.addSub({ kind: 'program', id, ws, owner: String(params[0]), filters: c.filters ?? [] });
          return reply(id);
        }
        case 'accountSubscribe':
          this.addSub({ kind: 'account', id, ws, address: String(params[0]) });
          return reply(id);
        case 'slotSubscribe':
          this.addSub({ kind: 'slot', id, ws });
          return reply(id);
        case 'programUnsubscribe':
        case 'accountUnsubscribe':
        case 'slotUnsubscribe':
          return reply(this.removeSub(Number(params[0])));
        default:
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
      }
    });
    ws.on('close', () => {
      for (const s of [...this.subs.values()]) if (s.ws === ws) this.removeSub(s.id);
    });
  }

  private addSub(s: Sub): void {
    this.subs.set(s.id, s);
    const index = s.kind === 'account' ? this.accountSubs : s.kind === 'program' ? this.programSubs : null;
    const key = s.kind === 'account' ? s.address : s.kind === 'program' ? s.owner : '';
    if (index) {
      let set = index.get(key);
      if (!set) index.set(key, (set = new Set()));
      set.add(s);
    }
  }

  private removeSub(id: number): boolean {
    const s = this.subs.get(id);
    if (!s) return false;
    this.subs.delete(id);
    if (s.kind === 'account') this.accountSubs.get(s.address)?.delete(s);
    if (s.kind === 'program') this.programSubs.get(s.owner)?.delete(s);
    return true;
  }

  private send(s: Sub, method: string, result: unknown): void {
    if (s.ws.readyState !== s.ws.OPEN) return;
    this.notifications.set(method, (this.notifications.get(method) ?? 0) + 1);
    s.ws.send(JSON.stringify({ jsonrpc: '2.0', method, params: { result, subscription: s.id } }));
  }

  private notifyAccount(a: ChainAccountChange): void {
    const account = a.data === null ? closedAccount() : wireAccount({ ...a, data: a.data });
    const context = { slot: a.slot };
    for (const s of this.accountSubs.get(a.address) ?? []) this.send(s, 'accountNotification', { context, value: account });
    if (a.data === null) return; // a closed account belongs to the system program: program subscriptions are not told
    for (const s of this.programSubs.get(a.owner) ?? []) {
      if (s.kind === 'program' && matches(a.data, s.filters)) this.send(s, 'programNotification', { context, value: { pubkey: a.address, account } });
    }
  }

  private notifySlot(slot: number): void {
    for (const s of this.subs.values()) if (s.kind === 'slot') this.send(s, 'slotNotification', { parent: slot - 1, root: Math.max(0, slot - 32), slot });
  }
}

function wireAccount(a: Pick<ChainAccount, 'owner' | 'lamports' | 'data'>): object {
  return { data: [a.data.toString('base64'), 'base64'], executable: false, lamports: Number(a.lamports), owner: a.owner, rentEpoch: 18446744073709551615, space: a.data.length };
}

function closedAccount(): object {
  return { data: ['', 'base64'], executable: false, lamports: 0, owner: '11111111111111111111111111111111', rentEpoch: 0, space: 0 };
}

/** the RPC's account filters: every one must hold */
export function matches(data: Buffer, filters: readonly Filter[]): boolean {
  for (const f of filters) {
    if (f.dataSize !== undefined && data.length !== f.dataSize) return false;
    if (f.memcmp) {
      const want = f.memcmp.encoding === 'base64' ? Buffer.from(f.memcmp.bytes, 'base64') : key(f.memcmp.bytes) ?? Buffer.alloc(0);
      const o = f.memcmp.offset;
      if (o + want.length > data.length || data.compare(want, 0, want.length, o, o + want.length) !== 0) return false;
    }
  }
  return true;
}

function key(text: string): Buffer | null {
  const b = base58Decode(text);
  return b === null ? null : Buffer.from(b);
}
