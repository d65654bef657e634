export * from './math';
export * from './swap';
export * from './pool';
