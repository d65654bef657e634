/**
 * The real mainnet accounts of ../shared/fixtures that the chain stand-in suites serve: the
 * SOL-USDC Whirlpool of whirlpool-essentials (pool, tick arrays, vaults) and the SOL and USDC
 * mints, as PoolUpdates of the raw bytes (see fixtures/SOURCES.md), and the check that what a
 * source wrote of them projects as they do.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { PoolUpdate } from '@app/contracts';
import { projectionOf } from '../projection';
import { marketsOf, quotesOf } from './compare';

const FIXTURES = path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'fixtures');

/** the SOL-USDC Whirlpool's address */
export const SOL_USDC_WHIRLPOOL = 'HJPjoWUrhoZzkNfRpHuieeFk9WcZWjwy6PBjZ81ngndJ';

/** the Whirlpool's accounts and its two mints, stamped slot 1, source 'file' */
export function solUsdcWhirlpoolAccounts(): PoolUpdate[] {
  const dir = (program: string): string => path.join(FIXTURES, program, 'whirlpool-essentials');
  const files = [
    ...fs.readdirSync(dir('orca-whirlpool')).filter((f) => /^sol_usdc_wp_(whirlpool|ta_|vault_)/.test(f)).map((f) => path.join(dir('orca-whirlpool'), f)),
    ...['token_native', 'token_usdc'].flatMap((prefix) => fs.readdirSync(dir('spl-token')).filter((f) => f.startsWith(prefix)).map((f) => path.join(dir('spl-token'), f))),
  ];
  return files.map((f) => {
    const j = JSON.parse(fs.readFileSync(f, 'utf8')) as { pubkey: string; account: { lamports: number; data: [string, string]; owner: string } };
    return { slot: 1, address: j.pubkey, owner: j.account.owner, lamports: BigInt(j.account.lamports), data: Buffer.from(j.account.data[0], 'base64'), source: 'file' };
  });
}

/** what a source wrote projects as the fixture's own bytes do: the Whirlpool routable, the same markets, the same quotes bit for bit */
export function expectAsFixture(written: readonly PoolUpdate[], accounts: readonly PoolUpdate[]): void {
  const viaSource = projectionOf([...written]);
  const direct = projectionOf([...accounts]);
  expect(viaSource.markets().find((m) => m.address === SOL_USDC_WHIRLPOOL)?.routable).toBe(true);
  expect(marketsOf(viaSource)).toEqual(marketsOf(direct));
  expect(quotesOf(viaSource)).toEqual(quotesOf(direct));
  expect(quotesOf(viaSource).filter((q) => !q.includes('error')).length).toBeGreaterThan(6);
}
