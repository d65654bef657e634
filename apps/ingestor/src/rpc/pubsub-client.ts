/**
 * A client of the Solana PubSub WebSocket (programSubscribe, accountSubscribe, slotSubscribe):
 * one socket, its subscriptions kept by the caller's key, and the notifications handed to the
 * caller with their subscription key.
 *
 *  - A dropped socket reconnects with exponential backoff and jitter (250 ms up to 10 s), then
 *    every subscription is made again; `onResubscribed` fires once all are confirmed, so the
 *    caller can heal the gap (what changed while the socket was down is read again).
 *  - Endpoints fail over: when a socket cannot be opened, the next attempt goes to the next URL.
 *  - A message that does not parse, a notification of an unknown subscription, or an error
 *    answer is counted by reason (`rejected`) and reported to `onBadMessage`; never thrown.
 */
import WebSocket from 'ws';

export type SubscribeRequest =
  | { method: 'programSubscribe'; params: [string, Record<string, unknown>] }
  | { method: 'accountSubscribe'; params: [string, Record<string, unknown>] }
  | { method: 'slotSubscribe'; params: [] };

export interface PubSubHandlers {
  onNotification(key: string, method: string, result: unknown): void;
  /** every subscription is confirmed on a new socket (after the first connection: a reconnection) */
  onResubscribed(reconnected: boolean): void;
  onDisconnected(reason: string): void;
  onBadMessage(reason: string): void;
}

export interface PubSubEndpoint {
  url: string;
  headers: Record<string, string>;
}

const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 10_000;
const UNSUBSCRIBE: Record<SubscribeRequest['method'], string> = {
  programSubscribe: 'programUnsubscribe',
  accountSubscribe: 'accountUnsubscribe',
  slotSubscribe: 'slotUnsubscribe',
};

export class PubSubClient {
  private ws: WebSocket | null = null;
  private readonly wanted = new Map<string, SubscribeRequest>();
  /** subscription id -> key, on the current socket */
  private readonly byId = new Map<number, string>();
  private readonly idOf = new Map<string, number>();
  /** request id -> key, awaiting its subscription id */
  private readonly pending = new Map<number, string>();
  private nextRequest = 1;
  private endpoint = 0;
  private connections = 0;
  private stopped = false;
  private delay = BACKOFF_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private allConfirmed = false;
  readonly rejected: Record<string, number> = {};
  reconnects = 0;

  constructor(
    private readonly endpoints: readonly PubSubEndpoint[],
    private readonly handlers: PubSubHandlers,
  ) {}

  /** open and every subscription confirmed */
  get live(): boolean {
    return this.allConfirmed && this.ws?.readyState === WebSocket.OPEN;
  }

  get subscriptions(): number {
    return this.wanted.size;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.ws?.terminate();
    this.ws = null;
  }

  /** subscribe under `key` (kept across reconnections); subscribing a key again does nothing */
  subscribe(key: string, req: SubscribeRequest): void {
    if (this.wanted.has(key)) return;
    this.wanted.set(key, req);
    this.allConfirmed = false;
    if (this.ws?.readyState === WebSocket.OPEN) this.send(key, req);
  }

  unsubscribe(key: string): void {
    const req = this.wanted.get(key);
    if (!req) return;
    this.wanted.delete(key);
    const id = this.idOf.get(key);
    if (id !== undefined && this.ws?.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id: this.nextRequest++, method: UNSUBSCRIBE[req.method], params: [id] }));
    }
    if (id !== undefined) this.byId.delete(id);
    this.idOf.delete(key);
  }

  private bad(reason: string): void {
    this.rejected[reason] = (this.rejected[reason] ?? 0) + 1;
    this.handlers.onBadMessage(reason);
  }

  private connect(): void {
    if (this.stopped) return;
    const ep = this.endpoints[this.endpoint % this.endpoints.length];
    const ws = new WebSocket(ep.url, { headers: ep.headers });
    this.ws = ws;
    this.byId.clear();
    this.idOf.clear();
    this.pending.clear();
    this.allConfirmed = false;
    let opened = false;
    ws.on('open', () => {
      opened = true;
      this.connections++;
      for (const [key, req] of this.wanted) this.send(key, req);
      this.checkConfirmed();
    });
    ws.on('message', (raw) => this.message(raw.toString()));
    ws.on('error', () => undefined); // 'close' follows
    ws.on('close', (code) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.allConfirmed = false;
      if (this.stopped) return;
      this.handlers.onDisconnected(`socket closed (${code})`);
      if (!opened) this.endpoint++; // this endpoint cannot be reached: the next one
      this.reconnects++;
      const wait = this.delay / 2 + Math.random() * this.delay;
      this.delay = Math.min(BACKOFF_MAX_MS, this.delay * 2);
      this.timer = setTimeout(() => this.connect(), wait);
    });
  }

  private send(key: string, req: SubscribeRequest): void {
    const id = this.nextRequest++;
    this.pending.set(id, key);
    this.ws!.send(JSON.stringify({ jsonrpc: '2.0', id, method: req.method, params: req.params }));
  }

  private checkConfirmed(): void {
    if (this.allConfirmed || this.pending.size > 0 || this.ws?.readyState !== WebSocket.OPEN) return;
    if (this.idOf.size < this.wanted.size) return;
    this.allConfirmed = true;
    this.delay = BACKOFF_MIN_MS;
    this.handlers.onResubscribed(this.connections > 1);
  }

  private message(text: string): void {
    let msg: { id?: unknown; result?: unknown; error?: { message?: string }; method?: unknown; params?: { result?: unknown; subscription?: unknown } };
    try {
      msg = JSON.parse(text);
    } catch {
      return this.bad('websocket message is not JSON');
    }
    if (typeof msg !== 'object' || msg === null) return this.bad('websocket message is not an object');
    if (typeof msg.id === 'number') {
      const key = this.pending.get(msg.id);
      if (key === undefined) return; // an unsubscribe's answer
      this.pending.delete(msg.id);
      if (msg.error !== undefined || typeof msg.result !== 'number') {
        this.bad(`subscription refused: ${msg.error?.message ?? 'no subscription id'}`);
        this.wanted.delete(key);
      } else if (this.wanted.has(key)) {
        this.byId.set(msg.result, key);
        this.idOf.set(key, msg.result);
      }
      return this.checkConfirmed();
    }
    if (typeof msg.method !== 'string' || typeof msg.params !== 'object' || msg.params === null) return this.bad('websocket message is neither an answer nor a notification');
    const sub = msg.params.subscription;
    const key = typeof sub === 'number' ? this.byId.get(sub) : undefined;
    if (key === undefined) return this.bad('notification of an unknown subscription');
    this.handlers.onNotification(key, msg.method, msg.params.result);
  }
}
