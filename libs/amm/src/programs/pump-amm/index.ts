export * from './math';
export * from './pool';
