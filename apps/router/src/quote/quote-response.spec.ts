import { evaluatePath } from '@app/amm';
import { FakePool } from '@app/amm/routing/testing/fake-pool';
import {
  buildQuoteResponse,
  formatPercent,
  priceImpact,
  priceImpactSeverity,
  priceImpactWarning,
} from './quote-response';
import { charge } from './aggregator-fee';

const otherAmountThreshold = (mode: 'ExactIn' | 'ExactOut', amountIn: bigint, amountOut: bigint, slippageBps: number): bigint =>
  charge(mode, amountIn, amountOut, 0, slippageBps).threshold;

const A = 'mintA';
const B = 'mintB';
const C = 'mintC';

describe('quote response', () => {
  it('severity thresholds (in whole bps): none <10, low <100, moderate <300, high ≤500, extreme >500', () => {
    expect([0, 9, 10, 99, 100, 299, 300, 500, 501, 10000].map(priceImpactSeverity)).toEqual([
      'none',
      'none',
      'low',
      'low',
      'moderate',
      'moderate',
      'high',
      'high',
      'extreme',
      'extreme',
    ]);
    expect(priceImpactWarning(9, 'none')).toBe('');
    expect(priceImpactWarning(12, 'low')).toMatch(/0\.12%/);
    expect(priceImpactWarning(600, 'extreme')).toMatch(/extreme/);
    expect(formatPercent(12)).toBe('0.12');
    expect(formatPercent(0)).toBe('0.00');
    expect(formatPercent(1234)).toBe('12.34');
  });

  it('otherAmountThreshold rounds the safe way in both modes', () => {
    // ExactIn: floor(999 × 9950 / 10000) = floor(994.005) = 994
    expect(otherAmountThreshold('ExactIn', 1000n, 999n, 50)).toBe(994n);
    expect(otherAmountThreshold('ExactIn', 1n, 1n, 50)).toBe(0n);
    expect(otherAmountThreshold('ExactIn', 1n, 10_000n, 0)).toBe(10_000n);
    expect(otherAmountThreshold('ExactIn', 1n, 10_000n, 10_000)).toBe(0n);
    // ExactOut: ceil(999 × 10050 / 10000) = ceil(1003.995) = 1004
    expect(otherAmountThreshold('ExactOut', 999n, 1n, 50)).toBe(1004n);
    expect(otherAmountThreshold('ExactOut', 1n, 1n, 1)).toBe(2n); // ceil(1.0001)
    expect(otherAmountThreshold('ExactOut', 10_000n, 1n, 0)).toBe(10_000n);
    expect(otherAmountThreshold('ExactOut', 10_000n, 1n, 10_000)).toBe(20_000n);
  });

  it('builds every field from the exact route; impact = 1 − (out/in) / (Π spot × Π (1 − fee))', () => {
    const ab = new FakePool('pool-ab', A, B, 1_000_000_000n, 2_000_000_000n, 30);
    const bc = new FakePool('pool-bc', B, C, 4_000_000_000n, 1_000_000_000n, 100);
    const route = evaluatePath({ pools: [ab, bc], mints: [A, B, C] }, 'ExactIn', 10_000_000n);
    const r = buildQuoteResponse(route, { slippageBps: 50, contextSlot: 42, logPosition: { '0': '17' } });
    const spot = 2 * 0.25;
    const keep = (1 - 0.003) * (1 - 0.01);
    const impact = 1 - Number(route.amountOut) / 10_000_000 / (spot * keep);
    expect(priceImpact(route)).toBeCloseTo(impact, 12);
    expect(r).toEqual({
      inputMint: A,
      outputMint: C,
      amountIn: '10000000',
      amountOut: route.amountOut.toString(),
      priceImpactBps: Math.round(impact * 10_000),
      priceImpactPercent: (Math.round(impact * 10_000) / 100).toFixed(2),
      priceImpactSeverity: 'moderate',
      priceImpactWarning: expect.stringContaining('%'),
      feeBps: 130,
      routes: [
        { poolAddress: 'pool-ab', poolType: 'Fake CP', percent: 100, inputMint: A, outputMint: B },
        { poolAddress: 'pool-bc', poolType: 'Fake CP', percent: 100, inputMint: B, outputMint: C },
      ],
      routePath: [A, B, C],
      hopCount: 2,
      otherAmountThreshold: ((route.amountOut * 9950n) / 10000n).toString(),
      contextSlot: 42,
      logPosition: { '0': '17' },
    });
    // 1 % of the first pool's input reserve ≈ 1 % impact, then ≈ 0.5 % on the second hop
    expect(r.priceImpactBps).toBeGreaterThan(140);
    expect(r.priceImpactBps).toBeLessThan(155);
  });

  it('a tiny trade has no impact (clamped at 0) and no warning; ExactOut threshold is a ceiling', () => {
    const ab = new FakePool('pool-ab', A, B, 10n ** 15n, 10n ** 15n, 25);
    const route = evaluatePath({ pools: [ab], mints: [A, B] }, 'ExactOut', 1_000_000n);
    const r = buildQuoteResponse(route, { slippageBps: 100, contextSlot: 1, logPosition: {} });
    expect(r.priceImpactBps).toBe(0);
    expect(r.priceImpactSeverity).toBe('none');
    expect(r.priceImpactWarning).toBe('');
    expect(r.amountOut).toBe('1000000');
    expect(r.otherAmountThreshold).toBe(((route.amountIn * 10100n + 9999n) / 10000n).toString());
  });
});
