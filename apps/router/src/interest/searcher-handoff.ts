/**
 * Background searches handed to a searcher (SEARCH_WORKER, see route-searcher.ts) instead of run
 * in this thread's slices: at most MAX_ASKED out at a time (a searcher answers on its own pools,
 * so a request sent long before its turn would come back searched on pools older than needed),
 * and its answers kept until the scheduler takes them between windows, priced again on this
 * thread's pools (QuoteCore.takeSearch).
 */
import { Logger } from '@nestjs/common';
import type { QuotesChanged } from '@app/contracts';
import { SEARCH_SLICE_MS } from './debounce-windows';
import type { QuoteCore } from './quote-core';
import type { RouteSearcher } from './route-searcher';
import { Answer, MAX_CANDIDATES, earliest, type Watched } from './tuple-state';

/** background searches out to the searcher at most */
const MAX_ASKED = 4;

export class SearcherHandoff {
  private readonly logger = new Logger('InterestService');
  /** background searches out to the searcher, and its answers waiting to be taken */
  asked = 0;
  answers: Answer[] = [];

  constructor(
    private readonly core: QuoteCore,
    /** an answer came back: a flush is wanted now */
    private readonly wake: () => void,
  ) {}

  /** the queued background searches handed to the searcher, up to MAX_ASKED out */
  askSearcher(searcher: RouteSearcher, now: number): void {
    while (this.asked < MAX_ASKED) {
      const w = this.core.queue.next(now);
      if (w === undefined) break;
      // off the queue: the answer is its search (the change behind the request is what it answers)
      this.ask(searcher, w, this.core.queue.unqueue(w));
    }
  }

  ask(searcher: RouteSearcher, w: Watched, cause: number | undefined): void {
    this.asked++;
    const at = Date.now();
    searcher.search(this.core.request(w), MAX_CANDIDATES).then(
      (found) => {
        this.asked--;
        this.answers.push(new Answer(w, at, cause, found));
        this.wake();
      },
      (e: unknown) => {
        // the searcher failed (a worker that died): a gain or a new pool queues the search again
        this.asked--;
        this.logger.warn(`background search lost: ${(e as Error).message}`);
      },
    );
  }

  /** the searcher's answers, oldest first, within SEARCH_SLICE_MS of `started` */
  takeAnswers(started: number, emit: (w: Watched, q: QuotesChanged, cause: number | undefined) => void): void {
    const answers = this.answers;
    let i = 0;
    for (; i < answers.length && Date.now() - started < SEARCH_SLICE_MS; i++) {
      const a = answers[i];
      const w = a.w;
      // unsubscribed meanwhile, or searched in full on this thread since (a first quote, a broken route)
      if (this.core.watched.get(w.key) !== w || w.searchedAt > a.at) continue;
      // a replay pending is answered by this push too (it quotes the current pools)
      const cause = earliest(a.cause, w.changedAt);
      emit(w, this.core.takeSearch(w, a), cause);
    }
    answers.splice(0, i);
  }
}
