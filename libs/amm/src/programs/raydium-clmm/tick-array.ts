/**
 * Tick arrays and the two bitmaps that say which tick arrays are initialized
 * (tick_array.rs, tick_array_bit_map.rs, tickarray_bitmap_extension.rs, pool.rs):
 *
 * - the pool's own 1024-bit bitmap covers tick array start indexes in
 *   [-tickSpacing·60·512, tickSpacing·60·512) (bit 512 = start index 0);
 * - beyond that (only possible when tickSpacing < 15) the bitmap extension account holds
 *   14 bitmaps of 512 tick arrays on each side.
 *
 * The search functions reproduce the program's, including the values it returns when nothing
 * is found (the next search starts from them) and its error conditions.
 */
import { ClmmMathError, MAX_TICK, MIN_TICK } from './math';

export const TICK_ARRAY_SIZE = 60;
export const TICK_ARRAY_BITMAP_SIZE = 512;
const EXTENSION_BITMAP_COUNT = 14;

/** What the swap reads of a tick. */
export interface ClmmSwapTick {
  tick: number;
  liquidityNet: bigint;
  liquidityGross: bigint;
  ordersAmount: bigint;
  partFilledOrdersRemaining: bigint;
}

/** What the swap reads of a tick array: 60 ticks from `startTickIndex`. */
export interface ClmmSwapTickArray {
  startTickIndex: number;
  ticks: ReadonlyArray<ClmmSwapTick>;
}

export function tickIsInitialized(t: ClmmSwapTick): boolean {
  return t.liquidityGross > 0n || t.ordersAmount > 0n || t.partFilledOrdersRemaining > 0n;
}

export function tickHasLimitOrders(t: ClmmSwapTick): boolean {
  return t.ordersAmount > 0n || t.partFilledOrdersRemaining > 0n;
}

export function tickCount(tickSpacing: number): number {
  return TICK_ARRAY_SIZE * tickSpacing;
}

/** Start index of the tick array holding `tick` (get_array_start_index). */
export function getArrayStartIndex(tick: number, tickSpacing: number): number {
  const n = tickCount(tickSpacing);
  return Math.floor(tick / n) * n;
}

export function isOutOfTickBoundary(tick: number): boolean {
  return tick < MIN_TICK || tick > MAX_TICK;
}

/** check_is_valid_start_index */
export function isValidStartIndex(startIndex: number, tickSpacing: number): boolean {
  if (isOutOfTickBoundary(startIndex)) {
    if (startIndex > MAX_TICK) return false;
    return startIndex === getArrayStartIndex(MIN_TICK, tickSpacing);
  }
  return startIndex % tickCount(tickSpacing) === 0;
}

export function maxTickInTickArrayBitmap(tickSpacing: number): number {
  return tickSpacing * TICK_ARRAY_SIZE * TICK_ARRAY_BITMAP_SIZE;
}

/** floor division as the program writes it for i32 (`a / b`, minus one when negative and inexact) */
function floorDivI32(a: number, b: number): number {
  return Math.floor(a / b);
}

/** Bits of a little-endian u64-word bitmap, one byte per bit, for cheap scans. */
export function bitmapBits(words: ReadonlyArray<bigint>): Uint8Array {
  const bits = new Uint8Array(words.length * 64);
  words.forEach((w, i) => {
    if (w === 0n) return;
    const lo = Number(w & 0xffffffffn);
    const hi = Number(w >> 32n);
    for (let b = 0; b < 32; b++) {
      if ((lo >>> b) & 1) bits[i * 64 + b] = 1;
      if ((hi >>> b) & 1) bits[i * 64 + 32 + b] = 1;
    }
  });
  return bits;
}

/**
 * The bitmaps the tick array search needs, prepared once per pool state. Shared: they are read,
 * never written (see prepareBitmaps).
 */
export interface ClmmBitmaps {
  readonly tickSpacing: number;
  /** pool.tick_array_bitmap, 1024 bits */
  readonly pool: Uint8Array;
  /** extension bitmaps (14 × 512 bits each side), or null when the extension account is not loaded */
  readonly positive: readonly Uint8Array[] | null;
  readonly negative: readonly Uint8Array[] | null;
}

/**
 * Bits already spread, by the decoded words they came from. A decoded account is kept per account
 * version (the projection's AccountView.memo), so a pool's re-materialisation, which asks for its
 * bitmaps three times (its dependencies, its tick arrays, its quote sides), spreads its pool
 * bitmap once, and the extension's 28 bitmaps once per version of the extension account (it
 * changes only when a tick array far from the price is initialized or cleared), instead of
 * allocating about 15 KB of them on every call.
 */
const spreadPool = new WeakMap<ReadonlyArray<bigint>, Uint8Array>();
const spreadExtension = new WeakMap<ReadonlyArray<ReadonlyArray<bigint>>, Uint8Array[]>();

/** `spread(words)`, kept in `cache` by the words */
function spreadOnce<W extends object, B>(cache: WeakMap<W, B>, words: W, spread: (w: W) => B): B {
  let bits = cache.get(words);
  if (bits === undefined) cache.set(words, (bits = spread(words)));
  return bits;
}

const spreadAll = (maps: ReadonlyArray<ReadonlyArray<bigint>>): Uint8Array[] => maps.map(bitmapBits);

export function prepareBitmaps(
  tickSpacing: number,
  poolBitmap: ReadonlyArray<bigint>,
  extension?: { positiveTickArrayBitmap: bigint[][]; negativeTickArrayBitmap: bigint[][] } | null,
): ClmmBitmaps {
  return {
    tickSpacing,
    pool: spreadOnce(spreadPool, poolBitmap, bitmapBits),
    positive: extension ? spreadOnce(spreadExtension, extension.positiveTickArrayBitmap, spreadAll) : null,
    negative: extension ? spreadOnce(spreadExtension, extension.negativeTickArrayBitmap, spreadAll) : null,
  };
}

/** The [min, max) range of start indexes the pool's own bitmap covers (tick_array_start_index_range). */
export function defaultBitmapRange(tickSpacing: number): [number, number] {
  let max = maxTickInTickArrayBitmap(tickSpacing);
  let min = -max;
  if (max > MAX_TICK) max = getArrayStartIndex(MAX_TICK, tickSpacing) + tickCount(tickSpacing);
  if (min < MIN_TICK) min = getArrayStartIndex(MIN_TICK, tickSpacing);
  return [min, max];
}

/** True when the tick array holding `tick` is outside the pool's own bitmap (is_overflow_default_tickarray_bitmap). */
export function isOverflowDefaultBitmap(tick: number, tickSpacing: number): boolean {
  const [min, max] = defaultBitmapRange(tickSpacing);
  const start = getArrayStartIndex(tick, tickSpacing);
  return start >= max || start < min;
}

function requireExtension(b: ClmmBitmaps): { positive: readonly Uint8Array[]; negative: readonly Uint8Array[] } {
  if (!b.positive || !b.negative) {
    throw new ClmmMathError(
      'MissingTickArrayBitmapExtensionAccount',
      'the swap reaches tick arrays beyond the pool bitmap and the bitmap extension account is not loaded',
    );
  }
  return { positive: b.positive, negative: b.negative };
}

// ---- pool (default) bitmap ----

/** check_current_tick_array_is_initialized on the pool bitmap. */
function currentArrayInitializedInPoolBitmap(b: ClmmBitmaps, tickCurrent: number): [boolean, number] {
  if (isOutOfTickBoundary(tickCurrent)) throw new ClmmMathError('InvalidTickIndex', `tick ${tickCurrent} out of range`);
  const multiplier = tickCount(b.tickSpacing);
  const compressed = floorDivI32(tickCurrent, multiplier) + 512;
  const bitPos = Math.abs(compressed);
  const initialized = bitPos < 1024 && b.pool[bitPos] === 1;
  return [initialized, (compressed - 512) * multiplier];
}

/** next_initialized_tick_array_start_index on the pool bitmap (search starts at the next array, inclusive). */
function nextInPoolBitmap(b: ClmmBitmaps, lastStart: number, zeroForOne: boolean): [boolean, number] {
  const ts = b.tickSpacing;
  if (!isValidStartIndex(lastStart, ts)) {
    throw new ClmmMathError('InvalidTickArrayBoundary', `invalid tick array start index ${lastStart}`);
  }
  const boundary = maxTickInTickArrayBitmap(ts);
  const multiplier = tickCount(ts);
  const next = zeroForOne ? lastStart - multiplier : lastStart + multiplier;
  if (next < -boundary || next >= boundary) return [false, lastStart];
  const bitPos = Math.abs(floorDivI32(next, multiplier) + 512);
  if (zeroForOne) {
    for (let i = bitPos; i >= 0; i--) if (b.pool[i]) return [true, (i - 512) * multiplier];
    return [false, -boundary];
  }
  for (let i = bitPos; i < 1024; i++) if (b.pool[i]) return [true, (i - 512) * multiplier];
  return [false, boundary - multiplier];
}

// ---- extension bitmaps ----

function checkExtensionBoundary(tickIndex: number, tickSpacing: number): void {
  const positive = maxTickInTickArrayBitmap(tickSpacing);
  if (!(MAX_TICK > positive) || !(-positive > MIN_TICK)) {
    throw new ClmmMathError('RequireGtViolated', `tick spacing ${tickSpacing} has no bitmap extension`);
  }
  if (tickIndex >= -positive && tickIndex < positive) {
    throw new ClmmMathError('InvalidTickArrayBoundary', `start index ${tickIndex} is inside the pool bitmap`);
  }
}

function extensionBitmap(b: ClmmBitmaps, startIndex: number): Uint8Array {
  const ts = b.tickSpacing;
  if (!isValidStartIndex(startIndex, ts)) throw new ClmmMathError('InvalidTickIndex', `invalid start index ${startIndex}`);
  checkExtensionBoundary(startIndex, ts);
  const perBitmap = maxTickInTickArrayBitmap(ts);
  let offset = Math.trunc(Math.abs(startIndex) / perBitmap) - 1;
  if (startIndex < 0 && Math.abs(startIndex) % perBitmap === 0) offset -= 1;
  const ext = requireExtension(b);
  const maps = startIndex < 0 ? ext.negative : ext.positive;
  if (offset < 0 || offset >= EXTENSION_BITMAP_COUNT) {
    throw new ClmmMathError('InvalidTickArrayBoundary', `start index ${startIndex} beyond the bitmap extension`);
  }
  return maps[offset];
}

function offsetInExtensionBitmap(startIndex: number, tickSpacing: number): number {
  const m = Math.abs(startIndex) % maxTickInTickArrayBitmap(tickSpacing);
  let offset = Math.trunc(m / tickCount(tickSpacing));
  if (startIndex < 0 && m !== 0) offset = TICK_ARRAY_BITMAP_SIZE - offset;
  return offset;
}

function bitmapTickBoundary(startIndex: number, tickSpacing: number): [number, number] {
  const perBitmap = maxTickInTickArrayBitmap(tickSpacing);
  let m = Math.trunc(Math.abs(startIndex) / perBitmap);
  if (startIndex < 0 && Math.abs(startIndex) % perBitmap !== 0) m += 1;
  const min = perBitmap * m;
  return startIndex < 0 ? [-min, -min + perBitmap] : [min, min + perBitmap];
}

function extensionIsInitialized(b: ClmmBitmaps, startIndex: number): boolean {
  const map = extensionBitmap(b, startIndex);
  const bit = offsetInExtensionBitmap(startIndex, b.tickSpacing);
  return bit < TICK_ARRAY_BITMAP_SIZE && map[bit] === 1;
}

/** next_initialized_tick_array_from_one_bitmap */
function nextInExtension(b: ClmmBitmaps, lastStart: number, zeroForOne: boolean): [boolean, number] {
  const ts = b.tickSpacing;
  const multiplier = tickCount(ts);
  const next = zeroForOne ? lastStart - multiplier : lastStart + multiplier;
  const minStart = getArrayStartIndex(MIN_TICK, ts);
  const maxStart = getArrayStartIndex(MAX_TICK, ts);
  if (next < minStart || next > maxStart) return [false, next];
  const map = extensionBitmap(b, next);
  const [bMin, bMax] = bitmapTickBoundary(next, ts);
  const offset = offsetInExtensionBitmap(next, ts);
  if (zeroForOne) {
    for (let i = Math.min(offset, TICK_ARRAY_BITMAP_SIZE - 1); i >= 0; i--) {
      if (map[i]) return [true, next - (offset - i) * multiplier];
    }
    return [false, bMin];
  }
  for (let i = offset; i < TICK_ARRAY_BITMAP_SIZE; i++) {
    if (map[i]) return [true, next + (i - offset) * multiplier];
  }
  return [false, bMax - multiplier];
}

// ---- pool-level searches (pool.rs) ----

/**
 * The next initialized tick array after `lastStart` in the swap direction, through the pool
 * bitmap then the extension (next_initialized_tick_array_start_index); null when there is none.
 */
export function nextInitializedTickArrayStartIndex(b: ClmmBitmaps, lastTick: number, zeroForOne: boolean): number | null {
  const ts = b.tickSpacing;
  let last = getArrayStartIndex(lastTick, ts);
  for (let guard = 0; guard < 64; guard++) {
    const [found, start] = nextInPoolBitmap(b, last, zeroForOne);
    if (found) return start;
    if (ts >= 15) return null;
    last = start;
    const [found2, start2] = nextInExtension(b, last, zeroForOne);
    if (found2) return start2;
    last = start2;
    if (last < MIN_TICK || last > MAX_TICK) return null;
  }
  throw new ClmmMathError('InvalidTickArrayBoundary', 'tick array search did not terminate');
}

/**
 * The tick array the swap starts in (get_first_initialized_tick_array): the array holding the
 * current tick when it is initialized (`[true, start]`), else the next initialized one in the
 * direction (`[false, start]`). Throws InsufficientLiquidityForDirection when there is none.
 */
export function firstInitializedTickArray(b: ClmmBitmaps, tickCurrent: number, zeroForOne: boolean): [boolean, number] {
  const ts = b.tickSpacing;
  const [initialized, start] = isOverflowDefaultBitmap(tickCurrent, ts)
    ? ((): [boolean, number] => {
        const s = getArrayStartIndex(tickCurrent, ts);
        return [extensionIsInitialized(b, s), s];
      })()
    : currentArrayInitializedInPoolBitmap(b, tickCurrent);
  if (initialized) return [true, start];
  const next = nextInitializedTickArrayStartIndex(b, getArrayStartIndex(tickCurrent, ts), zeroForOne);
  if (next === null) {
    throw new ClmmMathError('InsufficientLiquidityForDirection', 'no initialized tick array in the swap direction');
  }
  return [false, next];
}

/**
 * Initialized tick array start indexes from the array holding `tickCurrent` (included when
 * initialized) outward in one direction, at most `count`, as far as the bitmaps tell (an
 * unloaded extension ends the list early).
 */
export function initializedTickArraysFrom(
  b: ClmmBitmaps,
  tickCurrent: number,
  zeroForOne: boolean,
  count: number,
): number[] {
  const out: number[] = [];
  try {
    const [, first] = firstInitializedTickArray(b, tickCurrent, zeroForOne);
    out.push(first);
    while (out.length < count) {
      const next = nextInitializedTickArrayStartIndex(b, out[out.length - 1], zeroForOne);
      if (next === null) break;
      out.push(next);
    }
  } catch (e) {
    if (!(e instanceof ClmmMathError)) throw e;
  }
  return out;
}

// ---- within one tick array ----

/**
 * The next initialized tick at or below (zeroForOne) / strictly above the current tick within
 * the array (next_initialized_tick); null when the current tick is not in this array or none.
 */
export function nextInitializedTickInArray(
  array: ClmmSwapTickArray,
  tickCurrent: number,
  tickSpacing: number,
  zeroForOne: boolean,
): ClmmSwapTick | null {
  if (getArrayStartIndex(tickCurrent, tickSpacing) !== array.startTickIndex) return null;
  const offset = Math.trunc((tickCurrent - array.startTickIndex) / tickSpacing);
  if (zeroForOne) {
    for (let i = offset; i >= 0; i--) if (tickIsInitialized(array.ticks[i])) return array.ticks[i];
  } else {
    for (let i = offset + 1; i < TICK_ARRAY_SIZE; i++) if (tickIsInitialized(array.ticks[i])) return array.ticks[i];
  }
  return null;
}

/** The first initialized tick in the swap direction (highest for zeroForOne), else InvalidTickArray. */
export function firstInitializedTickInArray(array: ClmmSwapTickArray, zeroForOne: boolean): ClmmSwapTick {
  if (zeroForOne) {
    for (let i = TICK_ARRAY_SIZE - 1; i >= 0; i--) if (tickIsInitialized(array.ticks[i])) return array.ticks[i];
  } else {
    for (let i = 0; i < TICK_ARRAY_SIZE; i++) if (tickIsInitialized(array.ticks[i])) return array.ticks[i];
  }
  throw new ClmmMathError('InvalidTickArray', `tick array ${array.startTickIndex} has no initialized tick`);
}
