import 'reflect-metadata';
import type { ArgumentMetadata } from '@nestjs/common';
import { base58Encode } from '@app/solana';
import { ApiError } from '../http/api-error';
import { MAX_PRICE_BATCH, PRICE_ERRORS, PriceBatchQueryDto, PriceMintParamDto, createPriceValidationPipe, parseMintList } from './price.dto';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const key = (i: number): string => {
  const b = Buffer.alloc(32, 7);
  b.writeUInt16BE(i, 0);
  return base58Encode(b);
};

describe('parseMintList', () => {
  it('splits, keeps the order of first appearance and answers duplicates once', () => {
    expect(parseMintList(`${USDC},${SOL},${USDC},${SOL}`)).toEqual({ mints: [USDC, SOL] });
    expect(parseMintList(SOL)).toEqual({ mints: [SOL] });
  });

  it('accepts 100 entries and refuses 101 (entries as sent, duplicates included)', () => {
    const hundred = Array.from({ length: MAX_PRICE_BATCH }, (_, i) => key(i));
    expect(new Set(hundred).size).toBe(100);
    const r = parseMintList(hundred.join(','));
    expect('mints' in r && r.mints.length).toBe(100);
    expect(parseMintList([...hundred, SOL].join(','))).toEqual({ error: 'invalid mints: 101 mints given, at most 100' });
    expect(parseMintList(Array(101).fill(SOL).join(','))).toEqual({ error: PRICE_ERRORS.tooMany(101) });
  });

  it('names the first invalid entry, JSON-quoted (empty and padded entries included)', () => {
    expect(parseMintList(`${SOL},abc,${USDC},0OIl`)).toEqual({ error: 'invalid mint: "abc"' });
    expect(parseMintList(`${SOL},`)).toEqual({ error: 'invalid mint: ""' });
    expect(parseMintList(`${SOL}, ${USDC}`)).toEqual({ error: `invalid mint: " ${USDC}"` });
    expect(parseMintList('x'.repeat(300))).toEqual({ error: `invalid mint: "${'x'.repeat(64)}…"` });
  });

  it('refuses a missing, empty or repeated parameter', () => {
    expect(parseMintList(undefined)).toEqual({ error: PRICE_ERRORS.missingMints });
    expect(parseMintList('')).toEqual({ error: PRICE_ERRORS.missingMints });
    expect(parseMintList([SOL, USDC])).toEqual({ error: PRICE_ERRORS.repeatedMints });
    expect(parseMintList({ a: SOL })).toEqual({ error: PRICE_ERRORS.repeatedMints });
  });
});

describe('createPriceValidationPipe', () => {
  const pipe = createPriceValidationPipe();
  const query: ArgumentMetadata = { type: 'query', metatype: PriceBatchQueryDto };
  const param: ArgumentMetadata = { type: 'param', metatype: PriceMintParamDto };

  async function error(value: unknown, meta: ArgumentMetadata): Promise<{ status: number; text: string }> {
    try {
      await pipe.transform(value, meta);
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      return { status: (e as ApiError).getStatus(), text: (e as ApiError).error };
    }
    throw new Error('expected a validation error');
  }

  it('passes valid input', async () => {
    await expect(pipe.transform({ mints: `${SOL},${USDC}` }, query)).resolves.toMatchObject({ mints: `${SOL},${USDC}` });
    await expect(pipe.transform({ mint: SOL }, param)).resolves.toMatchObject({ mint: SOL });
  });

  it('turns each failure into a 400 with the parser\'s text', async () => {
    await expect(error({}, query)).resolves.toEqual({ status: 400, text: PRICE_ERRORS.missingMints });
    await expect(error({ mints: `${SOL},nope` }, query)).resolves.toEqual({ status: 400, text: 'invalid mint: "nope"' });
    await expect(error({ mints: [SOL, USDC] }, query)).resolves.toEqual({ status: 400, text: PRICE_ERRORS.repeatedMints });
    await expect(error({ mint: 'nope' }, param)).resolves.toEqual({ status: 400, text: 'invalid mint: "nope"' });
  });
});
