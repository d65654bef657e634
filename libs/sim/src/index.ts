export { CHECKPOINT_EVERY_SLOTS, SimCheckpoints, slotDigest } from './checkpoint';
export { SimMarket } from './market';
