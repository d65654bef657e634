import { MAX_FRAME_BYTES, parseFrame } from './protocol';

/** a subscribe frame padded (in an extra field) to `bytes` bytes of UTF-8 with the character `ch` */
function paddedSubscribe(bytes: number, ch: string): string {
  const head = '{"op":"subscribe","pairs":[{}],"pad":"';
  const tail = '"}';
  const padBytes = bytes - Buffer.byteLength(head + tail);
  const per = Buffer.byteLength(ch);
  expect(padBytes % per).toBe(0);
  return head + ch.repeat(padBytes / per) + tail;
}

describe('parseFrame', () => {
  it('maps ops and malformed frames to events', () => {
    expect(parseFrame('{"op":"subscribe","pairs":[{}]}').event).toBe('subscribe');
    expect(parseFrame('{"op":"unsubscribe","pairs":[1]}').event).toBe('unsubscribe');
    expect(parseFrame('{oops').event).toBe('invalid-json');
    expect(parseFrame('').event).toBe('invalid-json');
    expect(parseFrame('{"op":"dance","pairs":[]}').event).toBe('unknown-op');
    expect(parseFrame('{"op":"subscribe"}').event).toBe('bad-pairs');
    expect(parseFrame('{"op":"subscribe","pairs":[]}').event).toBe('bad-pairs');
  });

  it('parseable JSON that is not an object is told so (not "invalid json")', () => {
    for (const text of ['42', '"subscribe"', 'null', 'true', '[{"op":"subscribe","pairs":[{}]}]']) {
      expect(parseFrame(text)).toEqual({ event: 'bad-frame', data: { message: 'message must be a JSON object {op, pairs}' } });
    }
  });

  it('measures the frame limit in UTF-8 bytes, not UTF-16 code units', () => {
    const tooLarge = { event: 'bad-frame', data: { message: `frame too large (max ${MAX_FRAME_BYTES} bytes)` } };
    // 2-byte characters: fewer code units than the limit, more bytes
    const wide = paddedSubscribe(MAX_FRAME_BYTES + 2, 'é');
    expect(wide.length).toBeLessThan(MAX_FRAME_BYTES);
    expect(parseFrame(wide)).toEqual(tooLarge);
    // 4-byte characters (two code units each)
    expect(parseFrame(paddedSubscribe(MAX_FRAME_BYTES + 4, '😀'))).toEqual(tooLarge);
    // exactly at the limit is fine, one byte over is not
    expect(parseFrame(paddedSubscribe(MAX_FRAME_BYTES, 'é')).event).toBe('subscribe');
    expect(parseFrame(paddedSubscribe(MAX_FRAME_BYTES, 'a')).event).toBe('subscribe');
    expect(parseFrame(paddedSubscribe(MAX_FRAME_BYTES + 1, 'a'))).toEqual(tooLarge);
  });

  it('rejects binary frames (delivered as a Buffer, ArrayBuffer or fragments), even a valid subscribe', () => {
    const binary = { event: 'bad-frame', data: { message: 'binary frames are not supported: send JSON text' } };
    const frame = Buffer.from('{"op":"subscribe","pairs":[{}]}');
    expect(parseFrame(frame)).toEqual(binary);
    expect(parseFrame([frame.subarray(0, 5), frame.subarray(5)])).toEqual(binary);
    expect(parseFrame(new Uint8Array(frame).buffer)).toEqual(binary);
  });
});
