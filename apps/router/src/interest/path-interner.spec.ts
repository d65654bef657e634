import { PathInterner } from './path-interner';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const P1 = '58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2';
const P2 = 'Czfq3xZZDmsdGdUyrNLtRhGc47cXcZtLG4crryfu44zE';

describe('PathInterner', () => {
  it('hands back the lists it holds for a path built again, so tuples of one pair share them', () => {
    const lists = new PathInterner();
    const first = lists.intern([P1, P2], [SOL, USDC, BONK]);
    // a later search builds new arrays with the same contents
    const again = lists.intern([P1, P2].slice(), [SOL, USDC, BONK].slice());
    expect(again).toBe(first);
    expect(again.pools).toEqual([P1, P2]);
    expect(again.mints).toEqual([SOL, USDC, BONK]);
    expect(lists.size).toBe(1);
  });

  it('keeps paths apart that differ in a pool, in their order or in the mint they start from', () => {
    const lists = new PathInterner();
    const a = lists.intern([P1, P2], [SOL, USDC, BONK]);
    const reversed = lists.intern([P2, P1], [BONK, USDC, SOL]);
    const shorter = lists.intern([P1], [SOL, USDC]);
    const otherWay = lists.intern([P1], [USDC, SOL]);
    expect(new Set([a, reversed, shorter, otherWay]).size).toBe(4);
    expect(otherWay.mints).toEqual([USDC, SOL]);
    expect(lists.intern([P1], [USDC, SOL].slice())).toBe(otherWay);
    expect(lists.size).toBe(4);
  });

  it('does not hand out lists whose mints differ from those asked for', () => {
    const lists = new PathInterner();
    lists.intern([P1, P2], [SOL, USDC, BONK]);
    // the same key (start mint and pools) with other mints in between: the caller's own lists
    const odd = lists.intern([P1, P2], [SOL, BONK, USDC]);
    expect(odd.mints).toEqual([SOL, BONK, USDC]);
    expect(lists.intern([P1, P2], [SOL, BONK, USDC].slice())).toBe(odd);
  });

  it('forgets everything at its limit, and lists handed out before stay as they were', () => {
    const lists = new PathInterner(2);
    const a = lists.intern([P1], [SOL, USDC]);
    lists.intern([P2], [USDC, BONK]);
    expect(lists.size).toBe(2);
    const c = lists.intern([P1, P2], [SOL, USDC, BONK]);
    expect(lists.size).toBe(1);
    expect(a.pools).toEqual([P1]);
    expect(a.mints).toEqual([SOL, USDC]);
    expect(lists.intern([P1, P2], [SOL, USDC, BONK].slice())).toBe(c);
    // a path forgotten is held again from the next lists given
    const a2 = lists.intern([P1].slice(), [SOL, USDC].slice());
    expect(a2).not.toBe(a);
    expect(a2.pools).toEqual(a.pools);
  });
});
