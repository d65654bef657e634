/**
 * CHAIN_GATEWAY=sim: the simulated market's own chain over the router's projection. Blockhashes
 * follow the projection's slot; simulations execute against the projected pools and the sim
 * wallet ledger (funded through the faucet).
 */
import type { VersionedTransaction } from '@solana/web3.js';
import type { Projection } from '@app/pools';
import type { ChainGateway, LatestBlockhash, SimulationResult } from './chain-gateway';
import { SimChain, type SimExecution } from './sim-chain';

export class SimChainGateway implements ChainGateway {
  readonly kind = 'sim' as const;
  readonly chain = new SimChain();

  constructor(private readonly projection: () => Projection) {}

  async latestBlockhash(): Promise<LatestBlockhash> {
    return this.chain.blockhashAt(this.projection().slot);
  }

  async simulate(transaction: VersionedTransaction): Promise<SimulationResult> {
    const { success, error, insufficientFunds, slippageExceeded, computeUnitsConsumed, logs } = this.execute(transaction, false);
    return { success, error, insufficientFunds, slippageExceeded, computeUnitsConsumed, logs };
  }

  /** execute; with `commit` the balances are kept (the sim's sendTransaction) */
  execute(transaction: VersionedTransaction, commit: boolean): SimExecution {
    const p = this.projection();
    return this.chain.execute(p, transaction, p.slot, commit);
  }

  fund(wallet: string, mint: string | null, amount: bigint): { account: string; balance: bigint } {
    return this.chain.fund(this.projection(), wallet, mint, amount);
  }
}
