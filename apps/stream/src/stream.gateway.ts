import { Inject, Logger } from '@nestjs/common';
import { ConnectedSocket, MessageBody, OnGatewayConnection, OnGatewayDisconnect, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import { EVENTS, MAX_PAYLOAD_BYTES } from './protocol';
import type { StreamConnection } from './hub';
import { StreamService } from './stream.service';
import { APP_CONFIG } from '../../../libs/config/src/config.module';
import type { AppConfig } from '../../../libs/config/src/config';
import { metrics } from '../../../libs/observability/src/metrics';

let nextId = 1;

class WsConnection implements StreamConnection {
  readonly id = nextId++;
  private dropped = false;
  /** @param maxBuffered outbound bytes the socket may have queued before it counts as a slow reader */
  constructor(
    readonly socket: WebSocket,
    private readonly maxBuffered: number,
  ) {}

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
export class StreamGateway implements OnGatewayConnection, OnGatewayDisconnect {
  private readonly logger = new Logger('stream');
  private readonly conns = new WeakMap<WebSocket, WsConnection>();

  constructor(
    private readonly stream: StreamService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  handleConnection(socket: WebSocket): void {
    const conn = new WsConnection(socket, this.config.streamMaxBufferedBytes);
    this.conns.set(socket, conn);
    this.stream.hub.connect(conn);
  }

  handleDisconnect(socket: WebSocket): void {
    const conn = this.conns.get(socket);
    if (conn) this.stream.hub.disconnect(conn);
  }

  @SubscribeMessage(EVENTS.subscribe)
  onSubscribe(@ConnectedSocket() socket: WebSocket, @MessageBody() data: { pairs: unknown[] }): void {
    const conn = this.conns.get(socket);
    if (!conn) return;
    const { count, errors } = this.stream.hub.subscribe(conn, data.pairs);
    for (const message of errors) conn.send({ type: 'error', message });
    conn.send({ type: 'subscribed', count });
  }

  @SubscribeMessage(EVENTS.unsubscribe)
  onUnsubscribe(@ConnectedSocket() socket: WebSocket, @MessageBody() data: { pairs: unknown[] }): void {
    const conn = this.conns.get(socket);
    if (!conn) return;
    conn.send({ type: 'unsubscribed', count: this.stream.hub.unsubscribe(conn, data.pairs) });
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
