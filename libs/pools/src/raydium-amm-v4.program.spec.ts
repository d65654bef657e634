import { AmmV4Pool } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import { decodeAmmV4Info } from '@app/solana';
import { decodeTokenAccount } from '@app/solana';
import { Feed, fixtureAccount } from '../../../test/support/pool-fixtures';

const DIR = 'raydium-amm-v4/unattributed';
const ADDRESS = '58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2';
const info = fixtureAccount(`${DIR}/amm_info.${ADDRESS}.captured2026-08-06.json`);
const coin = fixtureAccount(`${DIR}/coin_vault.DQyrAcCrDXQ7NeoqGgDCZwBvWDcYmFCjSb9JtteuvPpz.captured2026-08-06.json`);
const pc = fixtureAccount(`${DIR}/pc_vault.HLmqeL62xR1QoZ1HKKbXRrdN1p3phKpxRMb2VVopvBBz.captured2026-08-06.json`);
const sol = fixtureAccount('spl-token/whirlpool-essentials/token_native.So11111111111111111111111111111111111111112.json');
const usdc = fixtureAccount('spl-token/whirlpool-essentials/token_usdc.EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v.json');
const decoded = decodeAmmV4Info(info.data, info.owner, ADDRESS);
const direct = new AmmV4Pool({
  address: ADDRESS,
  info: decoded,
  coinVaultAmount: decodeTokenAccount(coin.data, coin.owner).amount,
  pcVaultAmount: decodeTokenAccount(pc.data, pc.owner).amount,
  slot: 1,
});

describe('Raydium AMM v4 venue on the SOL/USDC capture (AmmInfo + both vaults)', () => {
  it('is routable and quotes exactly as the AMM v4 math', () => {
    const f = new Feed().put([info, coin, pc, sol, usdc]);
    const pool = f.projection.pool(ADDRESS) as AmmV4Pool;
    expect(pool).toBeInstanceOf(AmmV4Pool);
    expect(f.market(ADDRESS)).toMatchObject({ routable: true, label: 'Raydium AMM v4', kind: 'constant-product', mintA: sol.address, mintB: usdc.address });
    expect(pool.coinReserve).toBe(direct.coinReserve);
    for (const amt of [1_000n, 1_000_000_000n, 250_000_000_000n]) {
      expect(pool.quoteExactIn(sol.address, amt)).toEqual(direct.quoteExactIn(sol.address, amt));
      expect(pool.quoteExactIn(usdc.address, amt)).toEqual(direct.quoteExactIn(usdc.address, amt));
      expect(pool.quoteExactOut(sol.address, amt / 1000n)).toEqual(direct.quoteExactOut(sol.address, amt / 1000n));
      expect(pool.quoteExactOut(usdc.address, amt)).toEqual(direct.quoteExactOut(usdc.address, amt));
    }
  });

  it('a missing vault or mint, a vault of another mint, a wrong-size AmmInfo: unroutable with the reason', () => {
    expect(new Feed().put([info, coin, sol, usdc]).market(ADDRESS)!.reason).toBe(`missing pc vault account ${pc.address}`);
    expect(new Feed().put([info, coin, pc, sol]).market(ADDRESS)!.reason).toBe(`missing pc mint account ${usdc.address}`);
    const swapped = { ...pc, data: coin.data };
    expect(new Feed().put([info, coin, swapped, sol, usdc]).market(ADDRESS)!.reason).toBe(
      `pc vault ${pc.address} holds mint ${sol.address}, expected ${usdc.address}`,
    );
    const vaultWrongOwner = { ...coin, owner: PROGRAM_IDS.raydiumAmmV4 };
    expect(new Feed().put([info, vaultWrongOwner, pc, sol, usdc]).market(ADDRESS)!.reason).toMatch(/^undecodable coin vault: .*wrong owner/);
    // 751 bytes is not an AmmInfo at all: not a pool
    const f = new Feed().put([{ ...info, data: info.data.subarray(0, 751) }, coin, pc, sol, usdc]);
    expect(f.market(ADDRESS)).toBeUndefined();
  });

  it('a vault write re-materialises the pool with the new reserve', () => {
    const f = new Feed().put([info, coin, pc, sol, usdc]);
    const before = f.projection.pool(ADDRESS) as AmmV4Pool;
    const data = Buffer.from(coin.data);
    data.writeBigUInt64LE(before.coinVaultAmount + 5_000_000n, 64);
    f.put([{ ...coin, data }], 2);
    const after = f.projection.pool(ADDRESS) as AmmV4Pool;
    expect(after.coinVaultAmount).toBe(before.coinVaultAmount + 5_000_000n);
    expect(after.slot).toBe(2);
  });
});
