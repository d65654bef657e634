export * from './pool';
export * from './programs/raydium-cpmm';
