export * from './base58';
export * from './programs';
export * from './decode-error';
export * from './spl-token';
export * from './raydium-cpmm';
