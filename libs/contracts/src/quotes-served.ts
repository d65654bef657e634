import { isPublicKey } from '@app/solana';
import { ContractError } from './errors';
import { TOPICS } from './topics';

/**
 * `quotes-served`: one record per quote the router answered over HTTP, keyed by its quote id, so
 * an audit can replay the log prefix the answer was computed on (`logPosition`) and compare.
 */
export interface ServedQuoteRequest {
  inputMint: string;
  outputMint: string;
  /** smallest units, decimal string */
  amount: string;
  swapMode: 'ExactIn' | 'ExactOut';
  slippageBps: number;
  /** the request's route controls (schema version 2; dexes by program id) */
  controls?: ServedRouteControls;
}

/** route controls of a served request, as the router applied them */
export interface ServedRouteControls {
  dexes?: string[];
  excludeDexes?: string[];
  onlyDirectRoutes?: boolean;
  maxHops?: number;
  restrictIntermediateTokens?: boolean;
  /** with restrictIntermediateTokens: the liquid set it allowed (INTERMEDIATE_TOKENS) */
  intermediateTokens?: string[];
  maxAccounts?: number;
}

/** what /swap or /instructions built (schema version 2): who for, from which quote, and the answer */
export interface ServedBuild {
  userWallet: string;
  /** the served quote the build was asked for (swap by quoteId) */
  fromQuoteId?: string;
  /** true: that quote's state had moved on and the build quoted again (allowRequote) */
  requoted?: boolean;
  /** /swap: base64 of the SHA-256 of the transaction's serialized message (what the wallet signs) */
  messageHash?: string;
  /** the SwapResult / InstructionsResult as answered (JSON) */
  answer: Record<string, unknown>;
}

export interface ServedRouteInfo {
  poolAddress: string;
  poolType: string;
  percent: number;
  inputMint: string;
  outputMint: string;
}

/** The QuoteResponse as served (API.md §2, plus the provenance fields). */
export interface ServedQuoteResponse {
  inputMint: string;
  outputMint: string;
  amountIn: string;
  amountOut: string;
  priceImpactBps: number;
  priceImpactPercent: string;
  priceImpactSeverity: 'none' | 'low' | 'moderate' | 'high' | 'extreme';
  priceImpactWarning: string;
  feeBps: number;
  routes: ServedRouteInfo[];
  routePath: string[];
  hopCount: number;
  otherAmountThreshold: string;
  /** the request's integrator fee (platformFeeBps), when it had one */
  platformFee?: { amount: string; feeBps: number };
  contextSlot: number;
  logPosition: Record<string, string>;
}

/**
 * The fees the served quote included: the configured one (FEE_BPS > 0 with FEE_WALLET; bps 0 when
 * only the request's) with the routes that pay it, and the request's integrator fee (platformBps).
 */
export interface ServedFee {
  bps: number;
  routes: 'all' | 'multi-hop';
  platformBps?: number;
}

export interface QuoteServed {
  /** unique id of the served quote (also the record key and the X-Quote-Id response header) */
  quoteId: string;
  /** wall-clock time it was served, Unix milliseconds (informational) */
  servedAt: number;
  request: ServedQuoteRequest;
  response: ServedQuoteResponse;
  /** the newest slot of the state the quote was computed on (= response.contextSlot) */
  slot: number;
  /** `{partition: offset}` of the last pool-updates record applied (= response.logPosition) */
  logPosition: Record<string, string>;
  /** the aggregator fee the response's amounts include; absent: none (an audit recomputes with it) */
  fee?: ServedFee;
  /** which endpoint answered (schema version 2); absent: GET /quote */
  kind?: 'quote' | 'swap' | 'instructions';
  /** /swap and /instructions: what was built (schema version 2) */
  build?: ServedBuild;
}

/**
 * The newest schema version: 2 adds request.controls, kind and build. A record is written at
 * version 1 when it has none of them (readers of version 1 keep reading plain quotes) and at
 * version 2 otherwise (a reader of version 1 rejects it loudly rather than audit it without them).
 */
export const QUOTES_SERVED_VERSION = 2;

function versionOf(q: QuoteServed): number {
  return q.request.controls !== undefined || q.kind !== undefined || q.build !== undefined ? 2 : 1;
}

/** Wire form (JSON): {v: 1 or 2, quoteId, servedAt, request, response, slot, logPosition[, fee][, kind][, build]}. */
export function encodeQuoteServed(q: QuoteServed): Buffer {
  return Buffer.from(
    JSON.stringify({
      v: versionOf(q),
      quoteId: q.quoteId,
      servedAt: q.servedAt,
      request: q.request,
      response: q.response,
      slot: q.slot,
      logPosition: q.logPosition,
      ...(q.fee !== undefined ? { fee: { bps: q.fee.bps, routes: q.fee.routes, ...(q.fee.platformBps ? { platformBps: q.fee.platformBps } : {}) } } : {}),
      ...(q.kind !== undefined ? { kind: q.kind } : {}),
      ...(q.build !== undefined ? { build: q.build } : {}),
    }),
  );
}

function fail(reason: string): never {
  throw new ContractError(TOPICS.quotesServed, `malformed record: ${reason}`);
}

const AMOUNT = /^[1-9][0-9]{0,19}$/;
const UINT = /^(0|[1-9][0-9]{0,19})$/;
const U64_MAX = (1n << 64n) - 1n;
const SEVERITIES = ['none', 'low', 'moderate', 'high', 'extreme'];

function obj(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function key(v: unknown, what: string): string {
  if (!isPublicKey(v)) fail(`${what} is not a base58 public key`);
  return v;
}

function amount(v: unknown, what: string, zeroOk = false): string {
  if (typeof v !== 'string' || !(zeroOk ? UINT : AMOUNT).test(v) || BigInt(v) > U64_MAX) fail(`${what} must be a u64 decimal string`);
  return v;
}

function int(v: unknown, what: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) fail(`${what} must be an integer in [${min}, ${max}]`);
  return v;
}

function str(v: unknown, what: string, maxLen = 256): string {
  if (typeof v !== 'string' || v.length > maxLen) fail(`${what} must be a string`);
  return v;
}

function positions(v: unknown, what: string): Record<string, string> {
  const o = obj(v, what);
  const out: Record<string, string> = {};
  for (const [p, off] of Object.entries(o)) {
    if (!/^(0|[1-9][0-9]{0,9})$/.test(p)) fail(`${what} partition ${JSON.stringify(p)} is not a partition number`);
    if (typeof off !== 'string' || !UINT.test(off)) fail(`${what} offset of partition ${p} must be a decimal string`);
    out[p] = off;
  }
  return out;
}

function decodeRequest(v: unknown): ServedQuoteRequest {
  const o = obj(v, 'request');
  const swapMode = o.swapMode;
  if (swapMode !== 'ExactIn' && swapMode !== 'ExactOut') fail('request.swapMode must be ExactIn or ExactOut');
  return {
    inputMint: key(o.inputMint, 'request.inputMint'),
    outputMint: key(o.outputMint, 'request.outputMint'),
    amount: amount(o.amount, 'request.amount'),
    swapMode,
    slippageBps: int(o.slippageBps, 'request.slippageBps', 0, 10_000),
    ...(o.controls !== undefined ? { controls: decodeControls(o.controls) } : {}),
  };
}

function bool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') fail(`${what} must be a boolean`);
  return v;
}

function keys(v: unknown, what: string): string[] {
  if (!Array.isArray(v)) fail(`${what} must be an array`);
  return v.map((k, i) => key(k, `${what}[${i}]`));
}

function decodeControls(v: unknown): ServedRouteControls {
  const o = obj(v, 'request.controls');
  const c: ServedRouteControls = {};
  if (o.dexes !== undefined) c.dexes = keys(o.dexes, 'request.controls.dexes');
  if (o.excludeDexes !== undefined) c.excludeDexes = keys(o.excludeDexes, 'request.controls.excludeDexes');
  if (o.onlyDirectRoutes !== undefined) c.onlyDirectRoutes = bool(o.onlyDirectRoutes, 'request.controls.onlyDirectRoutes');
  if (o.maxHops !== undefined) c.maxHops = int(o.maxHops, 'request.controls.maxHops', 1, 5);
  if (o.restrictIntermediateTokens !== undefined) c.restrictIntermediateTokens = bool(o.restrictIntermediateTokens, 'request.controls.restrictIntermediateTokens');
  if (o.intermediateTokens !== undefined) c.intermediateTokens = keys(o.intermediateTokens, 'request.controls.intermediateTokens');
  if (o.maxAccounts !== undefined) c.maxAccounts = int(o.maxAccounts, 'request.controls.maxAccounts', 1, 256);
  return c;
}

function decodeBuild(v: unknown): ServedBuild {
  const o = obj(v, 'build');
  const b: ServedBuild = { userWallet: key(o.userWallet, 'build.userWallet'), answer: obj(o.answer, 'build.answer') };
  if (o.fromQuoteId !== undefined) b.fromQuoteId = str(o.fromQuoteId, 'build.fromQuoteId', 128);
  if (o.requoted !== undefined) b.requoted = bool(o.requoted, 'build.requoted');
  if (o.messageHash !== undefined) b.messageHash = str(o.messageHash, 'build.messageHash', 64);
  return b;
}

function decodeResponse(v: unknown): ServedQuoteResponse {
  const o = obj(v, 'response');
  if (!Array.isArray(o.routes) || o.routes.length === 0) fail('response.routes must be a non-empty array');
  const routes = o.routes.map((r, i): ServedRouteInfo => {
    const x = obj(r, `response.routes[${i}]`);
    return {
      poolAddress: key(x.poolAddress, `response.routes[${i}].poolAddress`),
      poolType: str(x.poolType, `response.routes[${i}].poolType`, 64),
      percent: int(x.percent, `response.routes[${i}].percent`, 0, 100),
      inputMint: key(x.inputMint, `response.routes[${i}].inputMint`),
      outputMint: key(x.outputMint, `response.routes[${i}].outputMint`),
    };
  });
  if (!Array.isArray(o.routePath) || o.routePath.length < 2) fail('response.routePath must list at least two mints');
  const routePath = o.routePath.map((m, i) => key(m, `response.routePath[${i}]`));
  const severity = o.priceImpactSeverity;
  if (typeof severity !== 'string' || !SEVERITIES.includes(severity)) fail('response.priceImpactSeverity is not a known severity');
  const percent = str(o.priceImpactPercent, 'response.priceImpactPercent', 16);
  if (!/^[0-9]+\.[0-9]{2}$/.test(percent)) fail('response.priceImpactPercent must be a percent with two decimals');
  return {
    inputMint: key(o.inputMint, 'response.inputMint'),
    outputMint: key(o.outputMint, 'response.outputMint'),
    amountIn: amount(o.amountIn, 'response.amountIn'),
    amountOut: amount(o.amountOut, 'response.amountOut'),
    priceImpactBps: int(o.priceImpactBps, 'response.priceImpactBps', 0, 10_000),
    priceImpactPercent: percent,
    priceImpactSeverity: severity as ServedQuoteResponse['priceImpactSeverity'],
    priceImpactWarning: str(o.priceImpactWarning, 'response.priceImpactWarning'),
    feeBps: int(o.feeBps, 'response.feeBps', 0, 100_000),
    routes,
    routePath,
    hopCount: int(o.hopCount, 'response.hopCount', 1, 16),
    otherAmountThreshold: amount(o.otherAmountThreshold, 'response.otherAmountThreshold', true),
    ...(o.platformFee !== undefined ? { platformFee: decodePlatformFee(o.platformFee) } : {}),
    contextSlot: int(o.contextSlot, 'response.contextSlot', 0),
    logPosition: positions(o.logPosition, 'response.logPosition'),
  };
}

function decodePlatformFee(v: unknown): { amount: string; feeBps: number } {
  const o = obj(v, 'response.platformFee');
  return { amount: amount(o.amount, 'response.platformFee.amount', true), feeBps: int(o.feeBps, 'response.platformFee.feeBps', 1, 1000) };
}

function decodeFee(v: unknown): ServedFee {
  const o = obj(v, 'fee');
  const routes = o.routes;
  if (routes !== 'all' && routes !== 'multi-hop') fail('fee.routes must be all or multi-hop');
  if (o.platformBps === undefined) return { bps: int(o.bps, 'fee.bps', 1, 1000), routes };
  return { bps: int(o.bps, 'fee.bps', 0, 1000), routes, platformBps: int(o.platformBps, 'fee.platformBps', 1, 1000) };
}

/** Validate and decode a record body (a Buffer / JSON text, or the parsed object). */
export function decodeQuoteServed(value: Buffer | string | unknown): QuoteServed {
  let raw: unknown = value;
  if (Buffer.isBuffer(value) || typeof value === 'string') {
    try {
      raw = JSON.parse(value.toString());
    } catch {
      fail('not JSON');
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('not an object');
  const o = raw as Record<string, unknown>;
  if (o.v === undefined) fail('missing schema version v');
  if (o.v !== 1 && o.v !== QUOTES_SERVED_VERSION) {
    throw new ContractError(TOPICS.quotesServed, `unsupported schema version ${JSON.stringify(o.v)} (this reader knows 1 and ${QUOTES_SERVED_VERSION})`);
  }
  const quoteId = str(o.quoteId, 'quoteId', 128);
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(quoteId)) fail('quoteId must be 1..128 characters of [A-Za-z0-9_-]');
  const request = decodeRequest(o.request);
  const response = decodeResponse(o.response);
  const slot = int(o.slot, 'slot', 0);
  const logPosition = positions(o.logPosition, 'logPosition');
  if (response.inputMint !== request.inputMint || response.outputMint !== request.outputMint) fail('response mints differ from the request');
  if (slot !== response.contextSlot) fail('slot differs from response.contextSlot');
  const out: QuoteServed = { quoteId, servedAt: int(o.servedAt, 'servedAt', 0), request, response, slot, logPosition };
  if (o.fee !== undefined) out.fee = decodeFee(o.fee);
  if (o.v === 1 && (request.controls !== undefined || o.kind !== undefined || o.build !== undefined)) fail('controls, kind and build need schema version 2');
  if (o.kind !== undefined) {
    if (o.kind !== 'quote' && o.kind !== 'swap' && o.kind !== 'instructions') fail('kind must be quote, swap or instructions');
    out.kind = o.kind;
  }
  if (o.build !== undefined) out.build = decodeBuild(o.build);
  return out;
}
