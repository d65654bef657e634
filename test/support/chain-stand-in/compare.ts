/**
 * Comparing two projections for the chain stand-in suites: the same pools (routable or not, with
 * the same reason and mints) and the same quotes, bit for bit, for a few amounts each way through
 * every routable pool. Slots are not compared (an RPC snapshot stamps an account with the slot
 * of the answer that carried it, the simulated feed with the slot of its last write).
 */
import type { LogMessage, LogPort } from '@app/log';
import { decodePoolUpdate, type PoolUpdate } from '@app/contracts';
import type { Projection } from '@app/pools';

export function marketsOf(p: Projection): string[] {
  return p.markets().map((m) => `${m.address} ${m.label} ${m.mintA} ${m.mintB} ${m.routable ? 'routable' : `unroutable: ${m.reason}`}`);
}

/** exact quotes through every routable pool: ExactIn and ExactOut of 1e3, 1e6, 1e9 units each way */
export function quotesOf(p: Projection): string[] {
  const out: string[] = [];
  for (const m of p.markets()) {
    if (!m.routable) continue;
    const pool = p.pool(m.address)!;
    for (const [a, b] of [
      [m.mintA!, m.mintB!],
      [m.mintB!, m.mintA!],
    ]) {
      for (const amount of [1_000n, 1_000_000n, 1_000_000_000n]) {
        for (const mode of ['in', 'out'] as const) {
          let q: string;
          try {
            const h = mode === 'in' ? pool.quoteExactIn(a, amount) : pool.quoteExactOut(a, amount);
            q = `${h.amountIn} ${h.amountOut} ${h.feeAmount}`;
          } catch (e) {
            q = `error ${(e as Error).message}`;
          }
          out.push(`${m.address} ${a}->${b} ${mode} ${amount}: ${q}`);
        }
      }
    }
  }
  return out;
}

/** a LogPort that only keeps what is appended to it (the sources' tests): `messages` of pool-updates, `byTopic` all */
export class CaptureLog {
  readonly messages: LogMessage[] = [];
  readonly byTopic = new Map<string, LogMessage[]>();
  /** when set, the next append throws it (a log that fails) */
  failNext: Error | null = null;
  async ensureTopic(): Promise<void> {}
  async append(topic: string, messages: LogMessage[]): Promise<never[]> {
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = null;
      throw e;
    }
    if (topic === 'pool-updates') this.messages.push(...messages);
    if (!this.byTopic.has(topic)) this.byTopic.set(topic, []);
    this.byTopic.get(topic)!.push(...messages);
    return [];
  }
  updates(): PoolUpdate[] {
    return this.messages.map((m) => decodePoolUpdate(m.value));
  }
  asLog(): LogPort {
    return this as unknown as LogPort;
  }
}
