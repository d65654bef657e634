/**
 * An insertion-ordered set of tuples that keeps its storage: what InterestService queues its
 * debounce windows' replays and its checks in. A window queues hundreds to thousands of tuples
 * and runs them off one by one, every tenth of a second under load; a JS Set grows and shrinks
 * its hash table with it (a new table each time, the large ones straight in the old generation),
 * and those tables were a large part of what outlived the quote thread's scavenges. Here each item
 * carries its own position in the queue (in `pos[slot]`, one slot per queue it may be in), so
 * membership needs no table, and the array of entries is reused once the queue is empty.
 *
 * Set semantics where InterestService relies on them: add of a member is a no-op, delete then
 * add puts it at the end, and an iteration is live (it sees what is added meanwhile and skips
 * what is deleted), also across the slices of a window (prewarm keeps an iterator between them).
 */
export interface Queueable {
  /** per queue slot: the item's index in that queue's entries, -1 when not in it */
  readonly pos: number[];
}

/** entries no longer live beyond twice the live ones (and this many) are compacted away on add */
const SLACK = 64;

export class TupleQueue<T extends Queueable> {
  private readonly entries: Array<T | undefined> = [];
  /** entries in use: [head, end) */
  private head = 0;
  private end = 0;
  private count = 0;
  /** bumped when entries move (compaction, reuse): a live iterator then goes on from the head */
  private epoch = 0;

  /** `slot`: this queue's index in its items' `pos` (each queue an item may be in has its own) */
  constructor(private readonly slot: number) {}

  get size(): number {
    return this.count;
  }

  has(x: T): boolean {
    return x.pos[this.slot] >= 0;
  }

  add(x: T): void {
    if (x.pos[this.slot] >= 0) return;
    if (this.count === 0) {
      // empty: the entries are all cleared, start over at the front of the same array
      if (this.end > 0) this.epoch++;
      this.head = this.end = 0;
    } else if (this.end - this.head > 2 * this.count + SLACK) this.compact();
    x.pos[this.slot] = this.end;
    if (this.end < this.entries.length) this.entries[this.end] = x;
    else this.entries.push(x);
    this.end++;
    this.count++;
  }

  delete(x: T): boolean {
    const i = x.pos[this.slot];
    if (i < 0) return false;
    x.pos[this.slot] = -1;
    this.entries[i] = undefined;
    this.count--;
    while (this.head < this.end && this.entries[this.head] === undefined) this.head++;
    return true;
  }

  /** the members in order; live (see the file comment). After entries moved it goes on from the head: every member not yet deleted comes again */
  *values(): Generator<T, void, undefined> {
    let epoch = this.epoch;
    let i = this.head;
    for (;;) {
      if (epoch !== this.epoch) {
        epoch = this.epoch;
        i = this.head;
      }
      if (i < this.head) i = this.head;
      if (i >= this.end) return;
      const x = this.entries[i++];
      if (x !== undefined) yield x;
    }
  }

  [Symbol.iterator](): Generator<T, void, undefined> {
    return this.values();
  }

  /** the live entries moved to the front, in order */
  private compact(): void {
    let to = 0;
    for (let i = this.head; i < this.end; i++) {
      const x = this.entries[i];
      if (x === undefined) continue;
      x.pos[this.slot] = to;
      this.entries[to++] = x;
    }
    for (let i = to; i < this.end; i++) this.entries[i] = undefined;
    this.head = 0;
    this.end = to;
    this.epoch++;
  }
}
