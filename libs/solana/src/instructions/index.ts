export * from './common';
export * from './system-token';
export * from './programs';
