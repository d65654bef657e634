export { isUnroutable } from './program-registry';
export { AccountEntry, AccountSlot, DEFAULT_PROGRAM_MODULES, Projection } from './projection';
export type { MarketInfo, ProjectionCounters, TokenInfo } from './projection';
