/**
 * CHAIN_GATEWAY=rpc: a Solana JSON-RPC node through @solana/web3.js `Connection`
 * (getLatestBlockhash, simulateTransaction with sigVerify off: the transaction is unsigned).
 */
import { Connection, type SimulatedTransactionResponse, type VersionedTransaction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../../../libs/solana/src/programs';
import { ChainGatewayError, SLIPPAGE_ERROR_CODES, TOKEN_INSUFFICIENT_FUNDS, type ChainGateway, type LatestBlockhash, type SimulationResult } from './chain-gateway';

export class RpcChainGateway implements ChainGateway {
  readonly kind = 'rpc' as const;
  private readonly connection: Connection;

  constructor(rpcUrl: string, rpcKey: string | null) {
    this.connection = new Connection(rpcUrl, {
      commitment: 'confirmed',
      disableRetryOnRateLimit: true,
      httpHeaders: rpcKey ? { Authorization: `Bearer ${rpcKey}` } : undefined,
    });
  }

  async latestBlockhash(): Promise<LatestBlockhash> {
    try {
      const r = await this.connection.getLatestBlockhash('confirmed');
      return { blockhash: r.blockhash, lastValidBlockHeight: r.lastValidBlockHeight };
    } catch (e) {
      throw new ChainGatewayError(`getLatestBlockhash: ${(e as Error).message}`);
    }
  }

  async simulate(transaction: VersionedTransaction): Promise<SimulationResult> {
    let value: SimulatedTransactionResponse;
    try {
      value = (await this.connection.simulateTransaction(transaction, { sigVerify: false, replaceRecentBlockhash: false, commitment: 'confirmed' })).value;
    } catch (e) {
      throw new ChainGatewayError(`simulateTransaction: ${(e as Error).message}`);
    }
    return simulationFromRpc(transaction, value);
  }
}

/** SimulationResult from an RPC simulateTransaction value: the error classified by program and code. */
export function simulationFromRpc(transaction: VersionedTransaction, value: SimulatedTransactionResponse): SimulationResult {
  const logs = value.logs ?? [];
  const err = value.err;
  let insufficientFunds = false;
  let slippageExceeded = false;
  let error = '';
  if (err !== null && err !== undefined) {
    error = typeof err === 'string' ? err : JSON.stringify(err);
    if (typeof err === 'string') insufficientFunds = /^InsufficientFunds/.test(err);
    const ie = typeof err === 'object' ? (err as { InstructionError?: [number, unknown] }).InstructionError : undefined;
    if (ie) {
      const [index, detail] = ie;
      const ix = transaction.message.compiledInstructions[index];
      const program = ix ? transaction.message.staticAccountKeys[ix.programIdIndex]?.toBase58() : undefined;
      const custom = typeof detail === 'object' && detail !== null ? (detail as { Custom?: number }).Custom : undefined;
      if (custom !== undefined && program !== undefined) {
        slippageExceeded = SLIPPAGE_ERROR_CODES.some(([p, c]) => p === program && c === custom);
        if ((program === PROGRAM_IDS.token || program === PROGRAM_IDS.token2022) && custom === TOKEN_INSUFFICIENT_FUNDS) insufficientFunds = true;
      }
      if (detail === 'InsufficientFunds') insufficientFunds = true;
    }
    if (!insufficientFunds && logs.some((l) => /insufficient (funds|lamports)/i.test(l))) insufficientFunds = true;
  }
  return { success: error === '', error, insufficientFunds, slippageExceeded, computeUnitsConsumed: value.unitsConsumed ?? 0, logs };
}
