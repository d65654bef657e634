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
} as const;

export const MAX_FRAME_BYTES = 256 * 1024;

export interface ParsedFrame {
  event: string;
  data: { pairs?: unknown[]; message?: string };
}

export function parseFrame(raw: unknown): ParsedFrame {
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : Array.isArray(raw) ? Buffer.concat(raw as Buffer[]).toString('utf8') : String(raw);
  if (text.length > MAX_FRAME_BYTES) return { event: EVENTS.badPairs, data: { message: `frame too large (max ${MAX_FRAME_BYTES} bytes)` } };
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return { event: EVENTS.invalidJson, data: {} };
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return { event: EVENTS.invalidJson, data: {} };
  const o = obj as Record<string, unknown>;
  if (o.op !== 'subscribe' && o.op !== 'unsubscribe') return { event: EVENTS.unknownOp, data: {} };
  if (!Array.isArray(o.pairs) || o.pairs.length === 0) {
    return { event: EVENTS.badPairs, data: { message: 'pairs must be a non-empty array of {in, out, amount, exactIn}' } };
  }
  return { event: o.op, data: { pairs: o.pairs } };
}
