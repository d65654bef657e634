export * from './route-search';
