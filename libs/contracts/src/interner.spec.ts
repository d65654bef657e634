import { StringInterner } from './interner';

describe('StringInterner', () => {
  it('gives back a string equal to the one given, and holds each distinct string once', () => {
    const strings = new StringInterner();
    const copy = (s: string): string => s.split('').join('');
    expect(strings.intern(copy('stream-a'))).toBe('stream-a');
    expect(strings.intern(copy('stream-a'))).toBe('stream-a');
    expect(strings.intern('So11111111111111111111111111111111111111112')).toBe('So11111111111111111111111111111111111111112');
    expect(strings.size).toBe(2);
  });

  it('starts over at its limit, so it never holds more than that many', () => {
    const strings = new StringInterner(3);
    for (let i = 0; i < 100; i++) {
      expect(strings.intern(`mint${i % 7}`)).toBe(`mint${i % 7}`);
      expect(strings.size).toBeLessThanOrEqual(3);
    }
  });
});
