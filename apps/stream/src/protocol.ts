/**
 * Client frames of WS /api/v1/stream: raw JSON text `{op: "subscribe"|"unsubscribe", pairs: [...]}`.
 * `parseFrame` maps a frame to a Nest event name for the WsAdapter's messageParser, so that
 * malformed frames reach a handler too (and get their `error` message) instead of being dropped.
 */
export const EVENTS = {
  subscribe: 'subscribe',
  unsubscribe: 'unsubscribe',
  invalidJson: 'invalid-json',
  unknownOp: 'unknown-op',
  badPairs: 'bad-pairs',
  /** a frame refused before its op is looked at (binary, too large, not a JSON object); data.message says why */
  badFrame: 'bad-frame',
} as const;

/** the largest frame parsed, in bytes of its payload: a larger one gets an `error` and the connection stays open */
export const MAX_FRAME_BYTES = 256 * 1024;
/**
 * the ws server's maxPayload: a frame (or fragmented message) larger than this is not buffered
 * at all, the connection is closed with 1009 (message too big)
 */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

export const FRAME_ERRORS = {
  binary: 'binary frames are not supported: send JSON text',
  tooLarge: `frame too large (max ${MAX_FRAME_BYTES} bytes)`,
  notObject: 'message must be a JSON object {op, pairs}',
} as const;

export interface ParsedFrame {
  event: string;
  data: { pairs?: unknown[]; message?: string };
}

/**
 * What the ws library hands the adapter's parser: a text frame arrives as a string (its UTF-8
 * payload already validated and decoded), a binary frame as a Buffer (an ArrayBuffer or an
 * array of Buffers with other `binaryType` settings).
 */
export type RawFrame = string | Buffer | ArrayBuffer | Buffer[];

export function parseFrame(raw: RawFrame): ParsedFrame {
  if (typeof raw !== 'string') return { event: EVENTS.badFrame, data: { message: FRAME_ERRORS.binary } };
  // the limit is on the frame as received: its UTF-8 bytes, not the decoded string's UTF-16 code units
  if (Buffer.byteLength(raw, 'utf8') > MAX_FRAME_BYTES) return { event: EVENTS.badFrame, data: { message: FRAME_ERRORS.tooLarge } };
  let obj: unknown;
  try {
    obj = JSON.parse(raw);
  } catch {
    return { event: EVENTS.invalidJson, data: {} };
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return { event: EVENTS.badFrame, data: { message: FRAME_ERRORS.notObject } };
  const o = obj as Record<string, unknown>;
  if (o.op !== 'subscribe' && o.op !== 'unsubscribe') return { event: EVENTS.unknownOp, data: {} };
  if (!Array.isArray(o.pairs) || o.pairs.length === 0) {
    return { event: EVENTS.badPairs, data: { message: 'pairs must be a non-empty array of {in, out, amount, exactIn}' } };
  }
  return { event: o.op, data: { pairs: o.pairs } };
}
