import fc from 'fast-check';
import { evaluatePath, NoRouteError, type Route } from '@app/amm';
import { FakePool } from '@app/amm/routing/testing/fake-pool';
import { aggregatorFeeOf, betterNet, charge, chargeRoute, feeBpsFor, netBest } from './aggregator-fee';

const A = 'mintA';
const B = 'mintB';
const C = 'mintC';
const U64 = (1n << 64n) - 1n;

describe('aggregator fee', () => {
  it('applies by configuration and hop count', () => {
    expect(aggregatorFeeOf({ feeBps: 0, feeWallet: 'w', feeRoutes: 'all' })).toBeNull();
    expect(aggregatorFeeOf({ feeBps: 30, feeWallet: null, feeRoutes: 'all' })).toBeNull();
    expect(aggregatorFeeOf({ feeBps: 30, feeWallet: 'w', feeRoutes: 'multi-hop' })).toEqual({ bps: 30, wallet: 'w', routes: 'multi-hop' });
    expect([1, 2, 6].map((n) => feeBpsFor({ bps: 30, routes: 'all' }, n))).toEqual([30, 30, 30]);
    expect([1, 2, 6].map((n) => feeBpsFor({ bps: 30, routes: 'multi-hop' }, n))).toEqual([0, 30, 30]);
    expect(feeBpsFor(null, 3)).toBe(0);
  });

  it('ExactIn: the fee comes off the output, rounded down; the bound is below what the user receives', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: U64 }), fc.bigInt({ min: 1n, max: U64 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 10_000 }), (routeIn, routeOut, f, s) => {
        const c = charge('ExactIn', routeIn, routeOut, f, s);
        expect(c.amountIn).toBe(routeIn);
        expect(c.amountOut + c.feeAmount).toBe(routeOut);
        // floor: fee × 10000 ≤ routeOut × f < (fee + 1) × 10000
        expect(c.feeAmount * 10_000n <= routeOut * BigInt(f)).toBe(true);
        expect((c.feeAmount + 1n) * 10_000n > routeOut * BigInt(f)).toBe(true);
        expect(c.threshold <= c.amountOut).toBe(true);
        expect(c.threshold * 10_000n <= c.amountOut * BigInt(10_000 - s)).toBe(true);
        expect((c.threshold + 1n) * 10_000n > c.amountOut * BigInt(10_000 - s)).toBe(true);
      }),
    );
  });

  it('ExactOut: the fee is added to the input; the bound covers the route at its slippage plus the fee', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: U64 }), fc.bigInt({ min: 1n, max: U64 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 10_000 }), (routeIn, routeOut, f, s) => {
        const c = charge('ExactOut', routeIn, routeOut, f, s);
        expect(c.amountOut).toBe(routeOut);
        expect(c.amountIn - c.feeAmount).toBe(routeIn);
        expect(c.feeAmount).toBe((routeIn * BigInt(f)) / 10_000n);
        expect(c.threshold).toBe(c.maxRouteIn + c.feeAmount);
        const unclamped = (routeIn * BigInt(10_000 + s) + 9_999n) / 10_000n;
        if (unclamped + c.feeAmount > U64) {
          // clamped to the largest u64 (see the next test)
          expect(c.threshold).toBe(U64);
          return;
        }
        // ceil: maxRouteIn × 10000 ≥ routeIn × (10000 + s) > (maxRouteIn − 1) × 10000
        expect(c.maxRouteIn * 10_000n >= routeIn * BigInt(10_000 + s)).toBe(true);
        expect((c.maxRouteIn - 1n) * 10_000n < routeIn * BigInt(10_000 + s)).toBe(true);
        expect(c.threshold >= c.amountIn).toBe(true);
      }),
    );
  });

  it('with no fee, the amounts are the route\'s own', () => {
    const ab = new FakePool('pool-ab', A, B, 10n ** 12n, 10n ** 12n, 30);
    const r = evaluatePath({ pools: [ab], mints: [A, B] }, 'ExactIn', 10n ** 6n);
    expect(chargeRoute(r, null, 50)).toMatchObject({ amountIn: r.amountIn, amountOut: r.amountOut, feeAmount: 0n });
    expect(chargeRoute(r, { bps: 30, routes: 'multi-hop' }, 50).feeAmount).toBe(0n);
    expect(chargeRoute(r, { bps: 30, routes: 'all' }, 50).feeAmount).toBe((r.amountOut * 30n) / 10_000n);
  });

  describe('multi-hop only fee: the best direct route when it nets more', () => {
    // A→C direct at a slightly worse rate than A→B→C before the fee
    const ab = new FakePool('pool-ab', A, B, 10n ** 12n, 10n ** 12n, 1);
    const bc = new FakePool('pool-bc', B, C, 10n ** 12n, 10n ** 12n, 1);
    const ac = new FakePool('pool-ac', A, C, 10n ** 12n, 10n ** 12n, 10);
    const amount = 10n ** 6n;
    const path = evaluatePath({ pools: [ab, bc], mints: [A, B, C] }, 'ExactIn', amount);
    const direct = (): Route => evaluatePath({ pools: [ac], mints: [A, C] }, 'ExactIn', amount);

    it('the two-hop path is better before the fee, worse after 30 bps', () => {
      expect(path.amountOut).toBeGreaterThan(direct().amountOut);
      expect(chargeRoute(path, { bps: 30, routes: 'multi-hop' }, 0).amountOut).toBeLessThan(direct().amountOut);
    });

    it('netBest serves the direct route then, and the path when the fee is on every route or small', () => {
      expect(netBest(path, { bps: 30, routes: 'multi-hop' }, direct).hops.map((h) => h.pool.address)).toEqual(['pool-ac']);
      expect(netBest(path, { bps: 30, routes: 'all' }, direct)).toBe(path);
      expect(netBest(path, { bps: 1, routes: 'multi-hop' }, direct)).toBe(path);
      expect(netBest(path, null, direct)).toBe(path);
    });

    it('the direct search runs only when it could win, and its route error keeps the best', () => {
      let calls = 0;
      const counted = (): Route => {
        calls++;
        return direct();
      };
      netBest(direct(), { bps: 30, routes: 'multi-hop' }, counted); // already direct
      netBest(path, { bps: 30, routes: 'all' }, counted);
      expect(calls).toBe(0);
      expect(netBest(path, { bps: 30, routes: 'multi-hop' }, () => { throw new NoRouteError(); })).toBe(path);
      expect(() => netBest(path, { bps: 30, routes: 'multi-hop' }, () => { throw new TypeError('bug'); })).toThrow(TypeError);
    });

    it('ExactOut: the route that costs the user less after the fee', () => {
      const outAmount = 10n ** 6n;
      const p = evaluatePath({ pools: [ab, bc], mints: [A, B, C] }, 'ExactOut', outAmount);
      const d = evaluatePath({ pools: [ac], mints: [A, C] }, 'ExactOut', outAmount);
      expect(p.amountIn).toBeLessThan(d.amountIn);
      expect(betterNet(p, d, { bps: 30, routes: 'multi-hop' })).toBe(d);
      expect(betterNet(p, d, { bps: 30, routes: 'all' })).toBe(p);
    });
  });
});

describe('the ExactOut bound within u64', () => {
  it('is clamped to the largest u64 when the slippage would carry it over (the swap instructions still encode it)', () => {
    const U64_MAX = (1n << 64n) - 1n;
    const routeIn = U64_MAX - 1000n;
    const c = charge('ExactOut', routeIn, 5n, 0, 50);
    expect(c.threshold).toBe(U64_MAX);
    expect(c.maxRouteIn).toBe(U64_MAX);
    const withFee = charge('ExactOut', 10n ** 19n, 5n, 100, 9_000);
    expect(withFee.threshold).toBe(U64_MAX);
    expect(withFee.maxRouteIn + withFee.feeAmount).toBe(U64_MAX);
    // below the limit: unchanged (input + 0.5%, rounded up: 1,005,001.005 → 1,005,002)
    expect(charge('ExactOut', 1_000_001n, 5n, 0, 50).threshold).toBe(1_005_002n);
  });
});
