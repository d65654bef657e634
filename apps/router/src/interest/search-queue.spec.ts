/**
 * The background search queue on its own: which tuple is searched next, and when a request is shed.
 */
import { tupleKey, type QuoteTuple } from '@app/contracts';
import { SEARCH_STALE_MS, SearchQueue } from './search-queue';
import { Watched } from './tuple-state';

function given(n: number) {
  const watched = new Map<string, Watched>();
  const ws: Watched[] = [];
  for (let i = 0; i < n; i++) {
    const t: QuoteTuple = { in: 'A', out: `B${i}`, amount: '1000', exactIn: true };
    const w = new Watched(t, tupleKey(t));
    watched.set(w.key, w);
    ws.push(w);
  }
  return { queue: new SearchQueue(watched), watched, ws };
}

describe('SearchQueue', () => {
  it('given requests for a gain, when the next is taken, then the newest comes first and stays queued until unqueued', () => {
    const { queue, ws } = given(3);
    queue.queueForGain(ws[0], 100);
    queue.queueForGain(ws[1], 110);
    expect(queue.next(120)).toBe(ws[1]);
    expect(queue.has(ws[1].key)).toBe(true);
    expect(queue.unqueue(ws[1])).toBe(110);
    expect(queue.next(120)).toBe(ws[0]);
  });

  it('given a pool entered the graph, when all are queued, then their requests come after those for a gain, oldest first, each keeping the earliest change behind it', () => {
    const { queue, ws } = given(3);
    ws[2].queuedBy = 50;
    queue.queueAll((key) => key === ws[1].key, 100);
    expect(queue.size).toBe(2);
    expect(ws[0].queuedBy).toBe(100);
    expect(ws[2].queuedBy).toBe(50);
    queue.queueForGain(ws[1], 200);
    expect(queue.next(210)).toBe(ws[1]);
    queue.unqueue(ws[1]);
    expect(queue.next(210)).toBe(ws[0]);
  });

  it('given a gain request older than SEARCH_STALE_MS, when the next is taken, then it is withdrawn unrun and counted as shed', () => {
    const { queue, ws } = given(2);
    queue.queueForGain(ws[0], 0);
    expect(queue.next(SEARCH_STALE_MS + 1)).toBeUndefined();
    expect(queue.has(ws[0].key)).toBe(false);
    expect(queue.shedSearches).toBe(1);
  });

  it('given a later gain, when a search is already queued, then it keeps the earlier change; a sweep drops stale and withdrawn entries from the gain stack', () => {
    const { queue, ws } = given(2);
    queue.queueForGain(ws[0], 100);
    queue.queueForGain(ws[0], 300);
    expect(ws[0].queuedBy).toBe(100);
    queue.queueForGain(ws[1], 900);
    queue.unqueue(ws[1]);
    queue.sweep(100 + SEARCH_STALE_MS + 1);
    expect(queue.gainSearches).toEqual([]);
    expect(queue.shedSearches).toBe(1);
  });
});
