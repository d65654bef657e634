/**
 * /swap's compute unit limit over CHAIN_GATEWAY=rpc: SwapService with the RpcChainGateway
 * against a local JSON-RPC server answering in the shape a Solana node returns
 * (getLatestBlockhash, simulateTransaction with unitsConsumed). Without a simulation the limit is
 * the estimate; with one, the consumption the node reports plus 10%, rounded up, at most
 * 1,400,000; a simulation that runs out of units is repeated with 1,400,000 first. A priority
 * level is priced from the node's getRecentPrioritizationFees for the transaction's writable accounts.
 */
import { startJsonRpcServer, type JsonRpcServer } from '../../../../test/support/json-rpc-server';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { Projection } from '@app/pools';
import type { ProjectionService } from '../projection/projection.service';
import { encodePoolUpdate } from '@app/contracts';
import { loadConfig } from '@app/config';
import { PROGRAM_IDS, decodeAddressLookupTable } from '@app/solana';
import { RpcChainGateway } from '../chain/rpc.gateway';
import { MAX_COMPUTE_UNITS, SwapService, unitLimitFromSimulation } from './swap.service';
import { parsePrioritizationFee } from './priority-fee';

const BLOCKHASH = 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N';
const LAST_VALID = 319475455;

const market = new SimMarket({ seed: 5, pools: 40, tokens: 12, swapsPerSlot: 4, lookupTables: true });
const projection = new Projection();
let offset = 0;
for (const u of market.genesis()) projection.apply({ partition: 0, offset: offset++, value: encodePoolUpdate(u) });

/** answers simulateTransaction with the value this returns for the transaction's unit limit */
let simulate: (limit: number) => { err: unknown; logs: string[]; unitsConsumed: number };
const calls: Array<{ method: string; limit?: number; accounts?: string[] }> = [];
/** what the node answers getRecentPrioritizationFees with (per slot, as a node reports them) */
let recentFees: Array<{ slot: number; prioritizationFee: number }> = [];
let server: JsonRpcServer;
let service: SwapService;

/** the SetComputeUnitPrice of a transaction (micro-lamports per unit; null without one) */
function priceOf(tx: VersionedTransaction): bigint | null {
  const keys = tx.message.staticAccountKeys;
  const ix = tx.message.compiledInstructions.find((c) => keys[c.programIdIndex].toBase58() === PROGRAM_IDS.computeBudget && c.data[0] === 3);
  return ix === undefined ? null : Buffer.from(ix.data).readBigUInt64LE(1);
}

/** the writable accounts a transaction names, its lookup tables' included */
function writableKeysOf(tx: VersionedTransaction): string[] {
  const m = tx.message;
  const out = m.staticAccountKeys.filter((_, i) => m.isAccountWritable(i)).map((k) => k.toBase58());
  for (const lookup of m.addressTableLookups) {
    const table = decodeAddressLookupTable(projection.account(lookup.accountKey.toBase58())!.data);
    for (const i of lookup.writableIndexes) out.push(table.addresses[i]);
  }
  return out;
}

/** the SetComputeUnitLimit of a transaction (its first instruction) */
function limitOf(tx: VersionedTransaction): number {
  const ix = tx.message.compiledInstructions[0];
  expect(tx.message.staticAccountKeys[ix.programIdIndex].toBase58()).toBe(PROGRAM_IDS.computeBudget);
  expect(ix.data[0]).toBe(2);
  return Buffer.from(ix.data).readUInt32LE(1);
}

beforeAll(async () => {
  server = await startJsonRpcServer((call) => {
    if (call.method === 'getLatestBlockhash') {
      calls.push({ method: call.method });
      return { context: { slot: 341197247, apiVersion: '2.1.13' }, value: { blockhash: BLOCKHASH, lastValidBlockHeight: LAST_VALID } };
    }
    if (call.method === 'getRecentPrioritizationFees') {
      calls.push({ method: call.method, accounts: (call.params as unknown[])[0] as string[] });
      return recentFees;
    }
    if (call.method === 'simulateTransaction') {
      const limit = limitOf(VersionedTransaction.deserialize(Buffer.from(call.params[0] as string, 'base64')));
      calls.push({ method: call.method, limit });
      return { context: { slot: 341197250, apiVersion: '2.1.13' }, value: { accounts: null, returnData: null, ...simulate(limit) } };
    }
    return undefined;
  });
  const url = server.url;
  const config = loadConfig({ DATA_DIR: 'unused', CHAIN_GATEWAY: 'rpc', RPC_URL: url });
  service = new SwapService({ projection } as unknown as ProjectionService, config, new RpcChainGateway(url, null));
});
afterAll(() => server.close());
beforeEach(() => {
  calls.length = 0;
});

const passing = (unitsConsumed: number) => () => ({ err: null, logs: ['Program CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C invoke [1]', 'Program CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C success'], unitsConsumed });
// one wallet: the estimate depends on it (the ATA program's address search, see compute-units.ts)
const WALLET = Keypair.generate().publicKey.toBase58();
const request = (skipSimulation: boolean) => ({
  userWallet: WALLET,
  inputMint: market.tokens[0].mint,
  outputMint: market.tokens[1].mint,
  amount: 10n ** 7n,
  swapMode: 'ExactIn' as const,
  slippageBps: 50,
  skipSimulation,
});

describe('SwapService over the rpc gateway: the compute unit limit', () => {
  let estimate: number;

  it('skipSimulation: the estimate, and no simulateTransaction call', async () => {
    const s = await service.swap(request(true));
    estimate = s.computeUnitsEstimate;
    expect(estimate).toBeGreaterThan(0);
    expect(calls.map((c) => c.method)).toEqual(['getLatestBlockhash']);
    const tx = VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64'));
    expect(limitOf(tx)).toBe(estimate);
    expect(tx.message.recentBlockhash).toBe(BLOCKHASH);
    expect(s.lastValidBlockHeight).toBe(LAST_VALID);
    expect(s.simulation).toBeUndefined();
  });

  it("a simulation: the node's unitsConsumed plus 10%, rounded up, set in the transaction and reported", async () => {
    simulate = passing(41_234);
    const s = await service.swap(request(false));
    // simulated with the estimate, then compiled again with the measured limit (no second simulation)
    expect(calls).toEqual([{ method: 'getLatestBlockhash' }, { method: 'simulateTransaction', limit: estimate }]);
    expect(s.computeUnitsEstimate).toBe(45_358);
    expect(unitLimitFromSimulation(41_234)).toBe(45_358);
    expect(limitOf(VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64')))).toBe(45_358);
    expect(s.simulation).toEqual({ success: true, error: '', insufficientFunds: false, slippageExceeded: false, computeUnitsConsumed: 41_234, logs: expect.any(Array) });
  });

  it('a consumption near the maximum: the limit is capped at 1,400,000', async () => {
    simulate = passing(1_300_000);
    const s = await service.swap(request(false));
    expect(s.computeUnitsEstimate).toBe(MAX_COMPUTE_UNITS);
    expect(limitOf(VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64')))).toBe(MAX_COMPUTE_UNITS);
  });

  it('out of units under the estimate (as a node reports it): simulated again with 1,400,000, the limit from that consumption', async () => {
    simulate = (limit) =>
      limit < MAX_COMPUTE_UNITS
        ? {
            err: { InstructionError: [2, 'ComputationalBudgetExceeded'] },
            logs: [`Program CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C consumed ${limit} of ${limit} compute units`, 'Program CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C failed: exceeded CUs meter at BPF instruction'],
            unitsConsumed: limit,
          }
        : passing(estimate + 20_000)();
    const s = await service.swap(request(false));
    expect(calls.filter((c) => c.method === 'simulateTransaction').map((c) => c.limit)).toEqual([estimate, MAX_COMPUTE_UNITS]);
    const consumed = estimate + 20_000;
    expect(s.computeUnitsEstimate).toBe(consumed + Math.ceil(consumed / 10));
    expect(limitOf(VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64')))).toBe(s.computeUnitsEstimate);
    expect(s.simulation?.success).toBe(true);
  });

  it('a failed simulation of another kind: simulation failed with the node\'s error, simulated once', async () => {
    simulate = () => ({ err: { InstructionError: [3, { Custom: 6005 }] }, logs: ['Program log: Error: ExceededSlippage'], unitsConsumed: 30_000 });
    await expect(service.swap(request(false))).rejects.toMatchObject({ error: 'simulation failed: {"InstructionError":[3,{"Custom":6005}]}' });
    expect(calls.filter((c) => c.method === 'simulateTransaction')).toHaveLength(1);
  });
});

describe('SwapService over the rpc gateway: a priority level priced from the node\'s recent fees', () => {
  // 20 slots of recent fees, 1,000 to 20,000 micro-lamports per unit, in no order
  const fees = Array.from({ length: 20 }, (_, i) => ({ slot: 341197200 + i, prioritizationFee: ((i * 7) % 20 + 1) * 1_000 }));
  const level = (priorityLevel: string, maxLamports: number) => ({ ...request(true), priorityFee: parsePrioritizationFee({ priorityLevelWithMaxLamports: { priorityLevel, maxLamports } })! });

  it("asks about the transaction's writable accounts and takes the level's percentile: medium 50th, high 75th, veryHigh 95th", async () => {
    recentFees = fees;
    const prices: Record<string, bigint | null> = {};
    for (const l of ['medium', 'high', 'veryHigh']) {
      calls.length = 0;
      const s = await service.swap(level(l, 1_000_000_000));
      prices[l] = priceOf(VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64')));
      const asked = calls.find((c) => c.method === 'getRecentPrioritizationFees')!;
      const tx = VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64'));
      const writable = writableKeysOf(tx);
      expect(asked.accounts!.length).toBeGreaterThan(0);
      for (const a of asked.accounts!) expect(writable).toContain(a);
    }
    expect(prices).toEqual({ medium: 10_000n, high: 15_000n, veryHigh: 19_000n });
  });

  it('caps the price so that price × limit stays within maxLamports', async () => {
    recentFees = fees;
    const s = await service.swap(level('veryHigh', 100));
    const tx = VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64'));
    const price = priceOf(tx)!;
    expect(price).toBe((100n * 1_000_000n) / BigInt(limitOf(tx)));
    expect((price * BigInt(limitOf(tx))) / 1_000_000n).toBeLessThanOrEqual(100n);
  });

  it("a node that reports no recent fees: the level's fixed price", async () => {
    recentFees = [];
    const s = await service.swap(level('high', 1_000_000_000));
    expect(priceOf(VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64')))).toBe(100_000n);
  });
});
