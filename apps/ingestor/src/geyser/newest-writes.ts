/**
 * Per account, the newest write the source has passed on: an update older than it is dropped,
 * never written over a newer one. Within a slot the Geyser write version orders the writes (a
 * replay after a reconnect delivers the same writes again: equal versions are dropped too); a
 * snapshot read (RPC) has no write version and yields to any stream write of its slot. Pure.
 */
export class NewestWrites {
  private readonly slots = new Map<string, number>();
  /** write version of the newest write, -1n: from a snapshot read */
  private readonly versions = new Map<string, bigint>();

  /** `true` (and recorded) when this write is newer than the last one passed on for `address` */
  accept(address: string, slot: number, writeVersion: bigint | null): boolean {
    const last = this.slots.get(address);
    const version = writeVersion ?? -1n;
    if (last !== undefined) {
      if (slot < last) return false;
      if (slot === last) {
        const lastVersion = this.versions.get(address)!;
        // a snapshot read never replaces what its slot already holds
        if (writeVersion === null || version <= lastVersion) return false;
      }
    }
    this.slots.set(address, slot);
    this.versions.set(address, version);
    return true;
  }

  /** the slot of the newest write passed on for `address` */
  slotOf(address: string): number | undefined {
    return this.slots.get(address);
  }

  /** every account a write was passed on for */
  addresses(): IterableIterator<string> {
    return this.slots.keys();
  }

  has(address: string): boolean {
    return this.slots.has(address);
  }

  get size(): number {
    return this.slots.size;
  }
}
