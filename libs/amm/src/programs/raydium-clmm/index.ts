export * from './math';
export * from './tick-array';
export * from './swap';
export * from './pool';
