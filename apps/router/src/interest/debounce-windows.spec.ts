/**
 * The debounce windows' bookkeeping on its own (no log, no timers): which window a change's
 * replays go to, when one becomes current, and the gaps the checks and background work take.
 */
import { tupleKey, type QuoteTuple } from '@app/contracts';
import { DEBOUNCE_MS, SEARCH_IDLE_PAUSE_MS, SEARCH_PAUSE_MS, SEARCH_SLICE_MS, Windows } from './debounce-windows';
import { Watched } from './tuple-state';

const tuple = (i: number): Watched => {
  const t: QuoteTuple = { in: 'A', out: `B${i}`, amount: '1000', exactIn: true };
  return new Watched(t, tupleKey(t));
};
const given = (): Windows =>
  new Windows(
    () => Promise.resolve({}),
    () => ({}),
    () => undefined,
  );

describe('Windows', () => {
  it('given no window, when a change queues replays, then a window opens due DEBOUNCE_MS after the change, answering it', () => {
    const win = given();
    win.replays.add(tuple(0));
    win.open(win.closed, 1_000 + DEBOUNCE_MS, 1_000);
    expect(win.replayDue).toBe(1_000 + DEBOUNCE_MS);
    expect(win.replayCause).toBe(1_000);
    // a later change joins it and keeps its deadline
    win.replays.add(tuple(1));
    win.open(win.closed, 1_020 + DEBOUNCE_MS, 1_020);
    expect(win.replayDue).toBe(1_000 + DEBOUNCE_MS);
  });

  it('given a closed window (its replays running), when a change queues replays, then they open the next window, which becomes current once the replays are done', () => {
    const win = given();
    const a = tuple(0);
    const b = tuple(1);
    win.replays.add(a);
    win.open(false, 1_050, 1_000);
    win.syncedFor = win.replayDue;
    expect(win.closed).toBe(true);
    expect(win.replaying(1_050)).toBe(true);
    win.nextReplays.add(b);
    win.open(win.closed, 1_110, 1_060);
    expect(win.nextDue).toBe(1_110);
    expect(win.has(b)).toBe(true);
    win.drop(a);
    win.rotate();
    expect(win.replayDue).toBe(1_110);
    expect(win.replayCause).toBe(1_060);
    expect(win.replays.has(b)).toBe(true);
    expect(win.nextDue).toBeNull();
    expect(win.closed).toBe(false);
  });

  it('given an open window, then checks run before its deadline, background work not in its last ms, and the pause between background slices is short only while nothing else waits', () => {
    const win = given();
    expect(win.checkGap(0)).toBe(true);
    expect(win.windowBusy(0)).toBe(false);
    expect(win.searchPause(false, 0)).toBe(SEARCH_IDLE_PAUSE_MS);
    win.replays.add(tuple(0));
    win.open(false, 1_050, 1_000);
    expect(win.checkGap(1_049)).toBe(true);
    expect(win.checkGap(1_050)).toBe(false);
    expect(win.windowBusy(1_050 - SEARCH_SLICE_MS - 3)).toBe(false);
    expect(win.windowBusy(1_050 - SEARCH_SLICE_MS - 1)).toBe(true);
    // only waiting for its deadline, its routes priced: the short pause; pricing ahead or a first quote waiting: the long one
    expect(win.searchPause(false, 0)).toBe(SEARCH_IDLE_PAUSE_MS);
    expect(win.searchPause(true, 0)).toBe(SEARCH_PAUSE_MS);
    expect(win.searchPause(false, 1)).toBe(SEARCH_PAUSE_MS);
  });
});
