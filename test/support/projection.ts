import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { Projection } from '@app/pools';

/** a projection of these pool updates, applied in order as one partition's records, its changes drained */
export function projectionOf(updates: Iterable<PoolUpdate>): Projection {
  const p = new Projection();
  let offset = 0;
  for (const u of updates) p.apply({ partition: 0, offset: String(offset++), value: encodePoolUpdate(u) });
  p.drainChanged();
  return p;
}
