import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');
const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);

describe('jsonDepthExceeds', () => {
  it('counts objects and arrays inside one another, up to the limit', () => {
    expect(jsonDepthExceeds(bytes(nested(MAX_JSON_DEPTH)))).toBe(false);
    expect(jsonDepthExceeds(bytes(nested(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(jsonDepthExceeds(bytes('{"a":{"b":[1,{"c":2}]}}'), 4)).toBe(false);
    expect(jsonDepthExceeds(bytes('{"a":{"b":[1,{"c":2}]}}'), 3)).toBe(true);
  });

  it('siblings do not add up: depth is the deepest nesting, not the count of brackets', () => {
    expect(jsonDepthExceeds(bytes(`[${Array.from({ length: 1000 }, () => '[[]]').join(',')}]`), 3)).toBe(false);
  });

  it('brackets inside strings, escaped quotes included, do not count', () => {
    expect(jsonDepthExceeds(bytes(JSON.stringify({ a: '[[[[[[[[[[', b: 'x\\"[[[[[[[[' })), 2)).toBe(false);
    expect(jsonDepthExceeds(bytes(JSON.stringify(['"', [['x']]])), 2)).toBe(true);
  });

  it('the 2,500-deep body that used to overflow the validation pipe', () => {
    expect(jsonDepthExceeds(bytes(nested(2500)))).toBe(true);
  });
});
