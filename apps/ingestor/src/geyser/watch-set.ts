/**
 * What the geyser source streams: the programs whose accounts it follows by owner, and the
 * accounts it follows by address (token vaults, mints, fee configs: accounts of other owners that
 * a pool's quote depends on), each with the owner it is expected to have. Pure data, no IO.
 */
export interface WatchSet {
  /** programs streamed by owner (an account they own is accepted when its layout is known) */
  readonly owners: ReadonlySet<string>;
  /** accounts streamed by address -> the owner each is expected to have (null: not known yet) */
  readonly addresses: ReadonlyMap<string, string | null>;
}

/** A watch set that grows as new pools bring new dependencies. */
export class MutableWatchSet implements WatchSet {
  readonly owners: Set<string>;
  readonly addresses: Map<string, string | null>;

  constructor(owners: Iterable<string>, addresses: Iterable<[string, string | null]> = []) {
    this.owners = new Set(owners);
    this.addresses = new Map(addresses);
  }

  /** add accounts to follow by address; returns those that were not followed yet */
  addAddresses(addresses: Iterable<string>): string[] {
    const added: string[] = [];
    for (const address of addresses) {
      if (this.addresses.has(address)) continue;
      this.addresses.set(address, null);
      added.push(address);
    }
    return added;
  }

  /** the owner an address-followed account was first seen with becomes the one it must keep */
  learnOwner(address: string, owner: string): void {
    if (this.addresses.get(address) === null) this.addresses.set(address, owner);
  }

  /** watched at all: by its owner or by its address */
  watches(address: string, owner: string): boolean {
    return this.owners.has(owner) || this.addresses.has(address);
  }
}
