import { LEVEL_PRICES, levelPrice, parsePrioritizationFee, unitPrice } from './priority-fee';

describe('priority fee', () => {
  it("a level's price is its percentile of the recent fees (the table without any)", () => {
    const fees = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190];
    expect(levelPrice('medium', fees)).toBe(90n);
    expect(levelPrice('high', fees)).toBe(140n);
    expect(levelPrice('veryHigh', fees)).toBe(180n);
    expect(levelPrice('high', [])).toBe(LEVEL_PRICES.high);
    expect(levelPrice('high', null)).toBe(LEVEL_PRICES.high);
  });

  it('a lamport amount and a level maximum bound price × limit', () => {
    expect(unitPrice({ kind: 'lamports', lamports: 1000n }, 300_000)).toBe(3333n);
    expect(unitPrice({ kind: 'level', level: 'high', maxLamports: 1000n }, 300_000, 1_000_000n)).toBe(3333n);
    expect(unitPrice({ kind: 'level', level: 'high', maxLamports: 1000n }, 300_000, 50n)).toBe(50n);
    expect(unitPrice({ kind: 'price', microLamports: 7n }, 300_000)).toBe(7n);
  });

  it('parses the two forms of prioritizationFeeLamports and refuses anything else', () => {
    expect(parsePrioritizationFee('500')).toEqual({ kind: 'lamports', lamports: 500n });
    expect(parsePrioritizationFee({ priorityLevelWithMaxLamports: { priorityLevel: 'veryHigh', maxLamports: 9 } })).toEqual({ kind: 'level', level: 'veryHigh', maxLamports: 9n });
    expect(parsePrioritizationFee({ priorityLevelWithMaxLamports: { priorityLevel: 'veryHigh', maxLamports: 9, x: 1 } })).toBeNull();
    expect(parsePrioritizationFee(2_000_000_000)).toBeNull();
  });
});
