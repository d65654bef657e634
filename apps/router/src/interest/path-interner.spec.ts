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

  it('keeps sharing the paths still in use across its turns, and lets go of the others within two', () => {
    const lists = new PathInterner(2);
    const a = lists.intern([P1], [SOL, USDC]);
    const b = lists.intern([P2], [USDC, BONK]);
    expect(lists.size).toBe(2);
    // the third path turns the table: a and b are the older generation now
    const c = lists.intern([P1, P2], [SOL, USDC, BONK]);
    expect(lists.size).toBe(1);
    // a is in use (a tuple's refresh finds it again): still the same lists, moved to the current generation
    expect(lists.intern([P1].slice(), [SOL, USDC].slice())).toBe(a);
    expect(lists.size).toBe(2);
    // another turn: b, not found again since the last one, is let go; a and c are kept
    const d = lists.intern([P2, P1], [BONK, USDC, SOL]);
    expect(lists.intern([P1].slice(), [SOL, USDC].slice())).toBe(a);
    expect(lists.intern([P1, P2].slice(), [SOL, USDC, BONK].slice())).toBe(c);
    expect(lists.intern([P2, P1].slice(), [BONK, USDC, SOL].slice())).toBe(d);
    // two more turns without b: b's lists are let go, and a path built again gets the caller's own
    lists.intern([P1, P1], [SOL, USDC, SOL]);
    lists.intern([P2, P2], [USDC, BONK, USDC]);
    lists.intern([P2, P2, P2], [USDC, BONK, USDC, BONK]);
    lists.intern([P1, P1, P1], [SOL, USDC, SOL, USDC]);
    const b2 = lists.intern([P2].slice(), [USDC, BONK].slice());
    expect(b2).not.toBe(b);
    expect(b2.pools).toEqual(b.pools);
    // lists handed out stay as they were
    expect(b.pools).toEqual([P2]);
    expect(b.mints).toEqual([USDC, BONK]);
  });

  it('turns before its current generation passes its limit, however many paths go through it', () => {
    const lists = new PathInterner(8);
    for (let i = 0; i < 1000; i++) {
      lists.intern([`pool${i}`], [SOL, USDC]);
      expect(lists.size).toBeLessThanOrEqual(8);
    }
  });
});
