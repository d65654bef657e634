/**
 * Swap instructions of the six supported liquidity programs, one module per program (this one
 * gathers them): instruction data (discriminators and argument layout as each program's IDL
 * defines them) and the account list in the program's order with its signer / writable flags.
 * Pure: the caller supplies the decoded pool state and the addresses that are not in it (tick
 * arrays, token programs, market accounts, user accounts).
 *
 * Amount semantics per builder (a = "amount", t = "threshold"):
 * - Raydium CPMM swap_base_input(a = exact in, t = min out) / swap_base_output(t = max in, a = exact out)
 * - Orca Whirlpool swap_v2(amount, other_amount_threshold, sqrt_price_limit = 0, amount_specified_is_input, a_to_b)
 * - Raydium CLMM swap_v2(amount, other_amount_threshold, sqrt_price_limit_x64 = 0, is_base_input)
 *   (a price limit of 0 is "none": both programs then swap to the end of the price range AND
 *   refuse a partial fill, the Whirlpool in exact-output mode, the CLMM in both modes)
 * - Raydium AMM v4 swap_base_in (tag 9: exact in, min out) / swap_base_out (tag 11: max in, exact out)
 * - PumpSwap buy(base out, max quote in) / buy_exact_quote_in(quote in, min base out) / sell(base in, min quote out)
 * - pump.fun buy(tokens out, max SOL) / buy_exact_sol_in(SOL in, min tokens) / sell(tokens in, min SOL)
 */
export * from './swap-basics';
export * from './raydium-cpmm-swap';
export * from './orca-whirlpool-swap';
export * from './raydium-clmm-swap';
export * from './raydium-amm-v4-swap';
export * from './pump-accounts';
export * from './pump-amm-swap';
export * from './pump-fun-swap';
