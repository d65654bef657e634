export * from './pool';
export * from './transfer-fee';
export * from './programs/raydium-cpmm';
export * from './programs/raydium-amm-v4';
export * from './programs/raydium-clmm';
export * from './programs/orca-whirlpool';
export * from './programs/pump-fun';
export * from './programs/pump-amm';

// Names several programs define: unprefixed, FEE_RATE_DENOMINATOR is Raydium CPMM's and the tick-math
// names are Orca Whirlpool's;
// every program's own value is also exported under a prefixed name.
export { FEE_RATE_DENOMINATOR } from './programs/raydium-cpmm';
export { FEE_RATE_DENOMINATOR as CPMM_FEE_RATE_DENOMINATOR } from './programs/raydium-cpmm';
export {
  FEE_RATE_DENOMINATOR as CLMM_FEE_RATE_DENOMINATOR,
  MAX_SQRT_PRICE_X64 as CLMM_MAX_SQRT_PRICE_X64,
  MIN_SQRT_PRICE_X64 as CLMM_MIN_SQRT_PRICE_X64,
  TICK_ARRAY_SIZE as CLMM_TICK_ARRAY_SIZE,
  U128_MAX as CLMM_U128_MAX,
  U64_MAX as CLMM_U64_MAX,
  computeSwapStep as clmmComputeSwapStep,
} from './programs/raydium-clmm';
export {
  MAX_SQRT_PRICE_X64,
  MIN_SQRT_PRICE_X64,
  TICK_ARRAY_SIZE,
  U128_MAX,
  U64_MAX,
  computeSwapStep,
  MAX_SQRT_PRICE_X64 as WHIRLPOOL_MAX_SQRT_PRICE_X64,
  MIN_SQRT_PRICE_X64 as WHIRLPOOL_MIN_SQRT_PRICE_X64,
  TICK_ARRAY_SIZE as WHIRLPOOL_TICK_ARRAY_SIZE,
  U128_MAX as WHIRLPOOL_U128_MAX,
  U64_MAX as WHIRLPOOL_U64_MAX,
  computeSwapStep as whirlpoolComputeSwapStep,
} from './programs/orca-whirlpool';
export { PriceOracle } from './pricing/price-oracle';
export type { PriceOracleStats, PriceRecord } from './pricing/price-oracle';
export { buildSyntheticClmm } from './programs/raydium-clmm/synthetic';
export { InsufficientLiquidityError, NoPoolError, NoRouteError, RouteError, evaluatePath, findBestRoute, findCandidatePaths, routeShares } from './routing';
export type { CandidatePath, ReplacedPool, Route, RouteHop, RouteRequest, RouteSearchOptions, SwapMode, TokenGraph } from './routing';
