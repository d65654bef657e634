/**
 * CHAIN_GATEWAY=rpc: a Solana JSON-RPC node through @solana/web3.js `Connection`
 * (getLatestBlockhash, simulateTransaction with sigVerify off: the transaction is unsigned;
 * getRecentPrioritizationFees for a priority level).
 * RPC_KEY goes where libs/solana/src/rpc-endpoint.ts says (the URL's empty parameter, or Bearer).
 * `check()` at start: the node answers and takes the key, or the start stops naming the variable.
 */
import { Connection, PublicKey, type SimulatedTransactionResponse, type VersionedTransaction } from '@solana/web3.js';
import { PROGRAM_IDS } from '@app/solana';
import { classifyRpcError, rpcEndpoints } from '@app/solana';
import { ChainGatewayError, isSlippageError, TOKEN_INSUFFICIENT_FUNDS, type ChainGateway, type LatestBlockhash, type SimulationResult } from './chain-gateway';

export class RpcChainGateway implements ChainGateway {
  readonly kind = 'rpc' as const;
  private readonly connection: Connection;

  constructor(
    private readonly rpcUrl: string,
    rpcKey: string | null,
  ) {
    const [endpoint] = rpcEndpoints([rpcUrl], [], rpcKey);
    this.connection = new Connection(endpoint.httpUrl, {
      commitment: 'confirmed',
      disableRetryOnRateLimit: true,
      httpHeaders: Object.keys(endpoint.headers).length > 0 ? endpoint.headers : undefined,
    });
  }

  /**
   * The start check: getLatestBlockhash answers. 401/403 -> the key is refused (RPC_KEY); no
   * answer, or 5xx three times -> the node is unreachable (RPC_URL). A 429 is an answer: the key
   * was accepted.
   */
  async check(attempts = 3, delayMs = 500): Promise<void> {
    let last = '';
    for (let i = 0; i < attempts; i++) {
      try {
        await this.connection.getLatestBlockhash('confirmed');
        return;
      } catch (e) {
        const kind = classifyRpcError(e);
        const message = (e as Error).message.slice(0, 160);
        if (kind === 'auth') throw new ChainGatewayError(`CHAIN_GATEWAY=rpc: the node at RPC_URL refused the key (${message}); check RPC_KEY`);
        if (kind === 'rate-limited') return;
        last = `${kind}: ${message}`;
        if (kind === 'malformed') break;
      }
      await new Promise((r) => setTimeout(r, delayMs * (i + 1)));
    }
    throw new ChainGatewayError(`CHAIN_GATEWAY=rpc: the node at RPC_URL ${new URL(this.rpcUrl).host} does not answer (${last}); check RPC_URL`);
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

  async recentPrioritizationFees(writableAccounts: string[]): Promise<number[]> {
    try {
      const fees = await this.connection.getRecentPrioritizationFees({ lockedWritableAccounts: writableAccounts.map((a) => new PublicKey(a)) });
      return fees.map((f) => f.prioritizationFee);
    } catch (e) {
      throw new ChainGatewayError(`getRecentPrioritizationFees: ${(e as Error).message}`);
    }
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
        slippageExceeded = isSlippageError(program, custom, ix.data);
        if ((program === PROGRAM_IDS.token || program === PROGRAM_IDS.token2022) && custom === TOKEN_INSUFFICIENT_FUNDS) insufficientFunds = true;
      }
      if (detail === 'InsufficientFunds') insufficientFunds = true;
    }
    if (!insufficientFunds && logs.some((l) => /insufficient (funds|lamports)/i.test(l))) insufficientFunds = true;
  }
  return { success: error === '', error, insufficientFunds, slippageExceeded, computeUnitsConsumed: value.unitsConsumed ?? 0, logs };
}
