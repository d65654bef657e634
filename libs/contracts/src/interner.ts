/**
 * One copy of each string a process keeps from the records and frames it parses (mints, stream
 * instance ids): every parse makes new strings, and a state that keeps one per entry would hold
 * thousands of copies of the same few. At most `limit` distinct strings are held; then the table
 * starts over (strings handed out before stay valid, only no longer shared with later ones).
 * Plain TypeScript.
 */
export class StringInterner {
  private readonly table = new Map<string, string>();

  constructor(private readonly limit = 4096) {}

  /** the copy of `s` held (s itself, the first time) */
  intern(s: string): string {
    const kept = this.table.get(s);
    if (kept !== undefined) return kept;
    if (this.table.size >= this.limit) this.table.clear();
    this.table.set(s, s);
    return s;
  }

  /** distinct strings held */
  get size(): number {
    return this.table.size;
  }
}
