import { parseFrame } from './protocol';

describe('parseFrame', () => {
  it('maps ops and malformed frames to events', () => {
    expect(parseFrame(Buffer.from('{"op":"subscribe","pairs":[{}]}')).event).toBe('subscribe');
    expect(parseFrame(Buffer.from('{"op":"unsubscribe","pairs":[1]}')).event).toBe('unsubscribe');
    expect(parseFrame(Buffer.from('{oops')).event).toBe('invalid-json');
    expect(parseFrame(Buffer.from('42')).event).toBe('invalid-json');
    expect(parseFrame(Buffer.from('{"op":"dance","pairs":[]}')).event).toBe('unknown-op');
    expect(parseFrame(Buffer.from('{"op":"subscribe"}')).event).toBe('bad-pairs');
    expect(parseFrame(Buffer.from('{"op":"subscribe","pairs":[]}')).event).toBe('bad-pairs');
  });
});
