/**
 * The rpc gateway against a local JSON-RPC HTTP server answering responses in the shape a
 * Solana node returns (recorded from the JSON-RPC API: getLatestBlockhash, simulateTransaction).
 */
import { startJsonRpcServer, type JsonRpcServer } from '../../../../test/support/json-rpc-server';
import { Keypair, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { PROGRAM_IDS } from '@app/solana';
import { setComputeUnitLimit } from '@app/solana';
import { raydiumCpmmSwap } from '@app/solana';
import type { CpmmPoolState } from '@app/solana';
import { RpcChainGateway } from './rpc.gateway';
import { ChainGatewayError } from './chain-gateway';

const BLOCKHASH = 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N';
let answer: (method: string, params: unknown[]) => unknown;
const seen: { method: string; auth: string | undefined; params: unknown[] }[] = [];
let server: JsonRpcServer;
let url: string;

beforeAll(async () => {
  server = await startJsonRpcServer((call) => {
    seen.push({ method: call.method, auth: call.auth, params: call.params });
    return answer(call.method, call.params);
  });
  url = server.url;
});
afterAll(() => server.close());

const wallet = Keypair.generate().publicKey;
function tx(): VersionedTransaction {
  const k = (): string => Keypair.generate().publicKey.toBase58();
  const state = { ammConfig: k(), token0Vault: k(), token1Vault: k(), token0Mint: k(), token1Mint: k(), token0Program: PROGRAM_IDS.token, token1Program: PROGRAM_IDS.token, observationKey: k() } as CpmmPoolState;
  const swap = raydiumCpmmSwap({ pool: k(), state, inputMint: state.token0Mint, mode: 'ExactIn', amount: 10n, threshold: 9n, user: { wallet: wallet.toBase58(), source: k(), destination: k() } });
  const msg = new TransactionMessage({ payerKey: wallet, recentBlockhash: BLOCKHASH, instructions: [setComputeUnitLimit(100_000), swap] }).compileToV0Message();
  return new VersionedTransaction(msg);
}

describe('RpcChainGateway', () => {
  it('latest blockhash with its last valid block height; the key as a bearer header', async () => {
    answer = (m) => (m === 'getLatestBlockhash' ? { context: { slot: 341197247, apiVersion: '2.1.13' }, value: { blockhash: BLOCKHASH, lastValidBlockHeight: 319475455 } } : null);
    const g = new RpcChainGateway(url, 'secret');
    expect(await g.latestBlockhash()).toEqual({ blockhash: BLOCKHASH, lastValidBlockHeight: 319475455 });
    expect(seen.at(-1)).toMatchObject({ method: 'getLatestBlockhash', auth: 'Bearer secret' });
  });

  it('a passing simulation: units and logs; sent unsigned with sigVerify off', async () => {
    answer = () => ({
      context: { slot: 341197250 },
      value: { err: null, accounts: null, logs: ['Program ComputeBudget111111111111111111111111111111 invoke [1]', 'Program ComputeBudget111111111111111111111111111111 success'], returnData: null, unitsConsumed: 41234 },
    });
    const r = await new RpcChainGateway(url, null).simulate(tx());
    expect(r).toEqual({ success: true, error: '', insufficientFunds: false, slippageExceeded: false, computeUnitsConsumed: 41234, logs: expect.any(Array) });
    expect(seen.at(-1)!.method).toBe('simulateTransaction');
    expect(seen.at(-1)!.params[1]).toMatchObject({ sigVerify: false, encoding: 'base64' });
  });

  it('classifies a CPMM ExceededSlippage (6005) as slippage, a token error 1 and InsufficientFundsForFee as insufficient funds', async () => {
    answer = () => ({ context: { slot: 1 }, value: { err: { InstructionError: [1, { Custom: 6005 }] }, logs: ['Program log: Error: ExceededSlippage'], unitsConsumed: 30000 } });
    let r = await new RpcChainGateway(url, null).simulate(tx());
    expect([r.success, r.slippageExceeded, r.insufficientFunds, r.error]).toEqual([false, true, false, '{"InstructionError":[1,{"Custom":6005}]}']);
    answer = () => ({ context: { slot: 1 }, value: { err: 'InsufficientFundsForFee', logs: [], unitsConsumed: 0 } });
    r = await new RpcChainGateway(url, null).simulate(tx());
    expect([r.insufficientFunds, r.slippageExceeded]).toEqual([true, false]);
    answer = () => ({ context: { slot: 1 }, value: { err: { InstructionError: [1, { Custom: 1 }] }, logs: ['Program log: Error: insufficient funds'], unitsConsumed: 9000 } });
    r = await new RpcChainGateway(url, null).simulate(tx());
    expect([r.insufficientFunds, r.slippageExceeded]).toEqual([true, false]);
  });

  it('an RPC error becomes a ChainGatewayError', async () => {
    answer = () => new Error('Node is behind by 42 slots');
    await expect(new RpcChainGateway(url, null).latestBlockhash()).rejects.toThrow(ChainGatewayError);
    await expect(new RpcChainGateway(url, null).simulate(tx())).rejects.toThrow(/Node is behind/);
  });
});

describe('RpcChainGateway.check (CHAIN_GATEWAY=rpc at start)', () => {
  it('passes when the node answers and takes the key (Bearer, or in the URL where it asks for it)', async () => {
    const { MarketChain } = await import('../../../../test/support/chain-stand-in/market-chain');
    const { RpcStandIn } = await import('../../../../test/support/chain-stand-in/rpc-stand-in');
    const node = await RpcStandIn.start(new MarketChain({ pools: 6, tokens: 5 }), { key: 'sekret' });
    try {
      await expect(new RpcChainGateway(node.url, 'sekret').check()).resolves.toBeUndefined();
      await expect(new RpcChainGateway(`${node.url}/?api-key=`, 'sekret').check()).resolves.toBeUndefined();
      await expect(new RpcChainGateway(node.url, 'wrong').check()).rejects.toThrow(/refused the key .*check RPC_KEY/);
      await expect(new RpcChainGateway(node.url, null).check()).rejects.toThrow(/RPC_KEY/);
    } finally {
      await node.close();
    }
  });

  it('a node that keeps answering 503 stops the start naming RPC_URL; a 429 is an answer', async () => {
    const { MarketChain } = await import('../../../../test/support/chain-stand-in/market-chain');
    const { RpcStandIn } = await import('../../../../test/support/chain-stand-in/rpc-stand-in');
    const node = await RpcStandIn.start(new MarketChain({ pools: 6, tokens: 5 }));
    try {
      node.faults.status = { code: 503, count: 3 };
      await expect(new RpcChainGateway(node.url, null).check(3, 1)).rejects.toThrow(/does not answer \(server: .*503 Service Unavailable.*check RPC_URL/);
      node.faults.status = { code: 429, count: 1 };
      await expect(new RpcChainGateway(node.url, null).check(3, 1)).resolves.toBeUndefined();
    } finally {
      await node.close();
    }
  });
});
