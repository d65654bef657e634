/**
 * maxAccounts: the accounts a request lets its route's transaction reference. The byte budget's
 * ladder (fit.ts) treats a transaction over it like one over 1232 bytes, so the best route
 * within it is served. Pure.
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { HttpStatus } from '@nestjs/common';
import { accountCount, TransactionTooLargeError } from './transaction';
import { ApiError } from '../http/api-error';

/** the error text (404) when no route's transaction stays within the request's maxAccounts */
export const NO_ROUTE_WITHIN_MAX_ACCOUNTS = 'no route within maxAccounts';

export function noRouteWithinMaxAccounts(): ApiError {
  return new ApiError(HttpStatus.NOT_FOUND, NO_ROUTE_WITHIN_MAX_ACCOUNTS);
}

/** the transaction references more accounts than the request's maxAccounts */
export class AccountBudgetError extends TransactionTooLargeError {
  constructor(
    readonly accounts: number,
    readonly maxAccounts: number,
  ) {
    super(Infinity, `${accounts} accounts exceed the request's maxAccounts ${maxAccounts}`);
    this.name = 'AccountBudgetError';
  }
}

/** throws AccountBudgetError when the instructions (with `payer`) reference more than `maxAccounts` distinct accounts */
export function checkAccountBudget(payer: string, instructions: readonly TransactionInstruction[], maxAccounts: number | undefined): void {
  if (maxAccounts === undefined) return;
  const n = accountCount(payer, instructions);
  if (n > maxAccounts) throw new AccountBudgetError(n, maxAccounts);
}

/** the wallet a quote's transaction is measured for (a quote has no user): any key that is no pool's account */
export const QUOTE_MEASURE_WALLET = 'QuoteMeasureWa11et1111111111111111111111111';
