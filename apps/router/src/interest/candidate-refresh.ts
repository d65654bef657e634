/**
 * The pacing of candidate refreshes (STREAM_REFRESH_MS): each tuple's candidate paths are searched
 * afresh about every refreshMs (QuoteCore.refreshCandidates), in the background slices and in the
 * time nothing else wants (see InterestService's idle rule): the paths that pay best move with
 * the market, and a tuple's checks only compare the paths of its last search with its route.
 * The refreshes owed accrue with time (the live tuples over refreshMs) and are paid a slice at a
 * time; first quotes come first.
 */
import type { QuotesChanged } from '@app/contracts';
import { REFRESH_SLICE_MS } from './debounce-windows';
import type { QuoteCore } from './quote-core';
import type { PushKind, Watched } from './tuple-state';

export type Emit = (w: Watched, q: QuotesChanged, cause: number, by: PushKind) => void;

export class CandidateRefresh {
  /** where the round over the tuples is, how many refreshes are owed, since when */
  private refreshCursor: Iterator<Watched> | null = null;
  refreshOwed = 0;
  refreshedAt = Date.now();

  constructor(
    private readonly core: QuoteCore,
    /** about how often each tuple's candidates are searched afresh (0: never) */
    private refreshMs: number,
    /** first quotes are waiting */
    private readonly urgent: () => boolean,
  ) {}

  /** at least one refresh is owed */
  get owed(): boolean {
    return this.refreshOwed >= 1;
  }

  /**
   * The next tuples' candidate paths searched afresh, as many as are owed for each tuple's to
   * come about every refreshMs, within REFRESH_SLICE_MS; not while first quotes are waiting, nor
   * for a tuple searched in full within that time; none when refreshMs is 0.
   */
  refreshSome(emit: Emit): void {
    if (this.refreshMs === 0) return;
    const watched = this.core.watched;
    const now = Date.now();
    const n = watched.size;
    this.refreshOwed = Math.min(n, this.refreshOwed + ((now - this.refreshedAt) * n) / this.refreshMs);
    this.refreshedAt = now;
    if (this.urgent()) return;
    let looped = false;
    while (this.refreshOwed >= 1 && Date.now() - now < REFRESH_SLICE_MS) {
      const next = (this.refreshCursor ??= watched.values()).next();
      if (next.done) {
        this.refreshCursor = null;
        // round every tuple and none left to refresh (each searched within refreshMs):
        // nothing is owed, so no idle slice comes back for it
        if (looped) {
          this.refreshOwed = 0;
          break;
        }
        looped = true;
        continue;
      }
      const w = next.value;
      // searched since the last round: its candidates are fresh enough
      if (now - w.searchedAt < this.refreshMs) continue;
      this.refreshOwed--;
      const q = this.core.refreshCandidates(w);
      if (q !== undefined) emit(w, q, Date.now(), 'refresh');
    }
  }
}
