import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ConnectedSocket, MessageBody, OnGatewayConnection, OnGatewayDisconnect, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'http';
import type { WebSocket } from 'ws';
import type { GatedRequest } from '@app/auth';
import { OwnerCaps } from './owner-caps';
import { EVENTS, MAX_PAYLOAD_BYTES } from './protocol';
import type { StreamConnection } from './hub';
import { StreamService } from './stream.service';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { metrics } from '@app/observability';

let nextId = 1;

class WsConnection implements StreamConnection {
  readonly id = nextId++;
  private dropped = false;
  /** the pairs it holds (for its owner's cap) */
  subscriptions = 0;
  /** a pong came since the last ping */
  private alive = true;
  /** the socket drained its output since the last ping; output was queued at the last ping */
  private drained = false;
  private queuedAtPing = false;
  /**
   * @param maxBuffered outbound bytes the socket may have queued before it counts as a slow reader
   * @param owner who the connection counts as (`key:<id>` or `ip:<address>`)
   */
  constructor(
    readonly socket: WebSocket,
    private readonly maxBuffered: number,
    readonly owner: string,
  ) {
    socket.on('pong', () => (this.alive = true));
    (socket as unknown as { _socket?: { on(e: string, f: () => void): void } })._socket?.on('drain', () => (this.drained = true));
  }

  /**
   * The slow-reader check, once every ping interval: a connection that answered no ping since
   * the last one, or whose output stayed queued since then without draining, is dropped;
   * otherwise it is pinged again.
   */
  tick(): void {
    if (this.dropped) return;
    const queued = this.socket.bufferedAmount > 0;
    if (!this.alive || (queued && this.queuedAtPing && !this.drained)) {
      this.dropped = true;
      metrics.streamDropped();
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.drained = false;
    this.queuedAtPing = queued;
    this.socket.ping();
  }

  send(message: object | string): boolean {
    if (this.dropped || this.socket.readyState !== this.socket.OPEN) return false;
    if (this.socket.bufferedAmount > this.maxBuffered) {
      this.dropped = true;
      metrics.streamDropped();
      this.socket.close(1008, 'outbound queue overflow: reconnect and resubscribe');
      this.socket.terminate();
      return false;
    }
    this.cork();
    // the hub sends quotes as their shared JSON text; acknowledgements and errors are objects
    if (typeof message === 'string') metrics.streamPushed();
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
    return true;
  }

  /**
   * Hold this tick's frames in the TCP socket and write them in one go on the next tick: a
   * batch of quotes from the log becomes one write per connection instead of one per quote.
   */
  private corked = false;
  private cork(): void {
    if (this.corked) return;
    const tcp = (this.socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (!tcp || typeof tcp.cork !== 'function') return;
    this.corked = true;
    tcp.cork();
    process.nextTick(() => {
      this.corked = false;
      tcp.uncork();
    });
  }
}

/** maxPayload: a frame over MAX_FRAME_BYTES but within it gets an `error`; beyond it the ws library closes with 1009 */
@WebSocketGateway({ path: '/api/v1/stream', maxPayload: MAX_PAYLOAD_BYTES })
export class StreamGateway implements OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  private readonly logger = new Logger('stream');
  private readonly conns = new Map<WebSocket, WsConnection>();
  /** STREAM_MAX_CONNECTIONS and STREAM_MAX_SUBSCRIPTIONS per key (per address with keys off) */
  private readonly caps: OwnerCaps;
  private readonly pinger: NodeJS.Timeout;

  constructor(
    private readonly stream: StreamService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.caps = new OwnerCaps({ maxConnections: config.streamMaxConnections, maxSubscriptions: config.streamMaxSubscriptions });
    this.pinger = setInterval(() => {
      for (const conn of this.conns.values()) conn.tick();
      this.caps.sweep();
    }, config.streamPingMs).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.pinger);
  }

  handleConnection(socket: WebSocket, req?: IncomingMessage): void {
    const owner = (req as GatedRequest | undefined)?.accessOwner ?? `ip:${req?.socket.remoteAddress ?? 'unknown'}`;
    if (!this.caps.open(owner)) {
      socket.close(1008, `too many connections: at most ${this.config.streamMaxConnections} per key (per address without keys)`);
      return;
    }
    const conn = new WsConnection(socket, this.config.streamMaxBufferedBytes, owner);
    this.conns.set(socket, conn);
    this.stream.hub.connect(conn);
  }

  handleDisconnect(socket: WebSocket): void {
    const conn = this.conns.get(socket);
    if (!conn) return;
    this.conns.delete(socket);
    this.stream.hub.disconnect(conn);
    this.caps.close(conn.owner, conn.subscriptions);
  }

  @SubscribeMessage(EVENTS.subscribe)
  onSubscribe(@ConnectedSocket() socket: WebSocket, @MessageBody() data: { pairs: unknown[] }): void {
    const conn = this.conns.get(socket);
    if (!conn) return;
    const room = this.caps.room(conn.owner);
    const { count, errors, overRoom } = this.stream.hub.subscribe(conn, data.pairs, room.left);
    conn.subscriptions += count;
    this.caps.subscribed(conn.owner, count);
    if (overRoom > 0) errors.push(this.caps.message(room.why, overRoom));
    for (const message of errors) conn.send({ type: 'error', message });
    conn.send({ type: 'subscribed', count });
  }

  @SubscribeMessage(EVENTS.unsubscribe)
  onUnsubscribe(@ConnectedSocket() socket: WebSocket, @MessageBody() data: { pairs: unknown[] }): void {
    const conn = this.conns.get(socket);
    if (!conn) return;
    const count = this.stream.hub.unsubscribe(conn, data.pairs);
    conn.subscriptions -= count;
    this.caps.unsubscribed(conn.owner, count);
    conn.send({ type: 'unsubscribed', count });
  }

  @SubscribeMessage(EVENTS.invalidJson)
  onInvalidJson(@ConnectedSocket() socket: WebSocket): void {
    this.conns.get(socket)?.send({ type: 'error', message: 'invalid json' });
  }

  @SubscribeMessage(EVENTS.unknownOp)
  onUnknownOp(@ConnectedSocket() socket: WebSocket): void {
    this.conns.get(socket)?.send({ type: 'error', message: 'unknown op' });
  }

  @SubscribeMessage(EVENTS.badPairs)
  onBadPairs(@ConnectedSocket() socket: WebSocket, @MessageBody() data: { message: string }): void {
    this.conns.get(socket)?.send({ type: 'error', message: data.message });
  }

  /** binary, too large, or JSON that is not an object: an `error` and nothing else */
  @SubscribeMessage(EVENTS.badFrame)
  onBadFrame(@ConnectedSocket() socket: WebSocket, @MessageBody() data: { message: string }): void {
    this.conns.get(socket)?.send({ type: 'error', message: data.message });
  }
}
