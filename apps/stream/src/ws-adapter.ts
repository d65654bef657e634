import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import { parseFrame } from './protocol';

/** The ws adapter with the stream's frame parser: raw `{op, pairs}` frames, no {event, data} wrapper. */
export function useStreamWsAdapter(app: INestApplication): void {
  app.useWebSocketAdapter(new WsAdapter(app, { messageParser: (data: unknown) => parseFrame(data) }));
}
