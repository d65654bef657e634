/**
 * What the geyser source streams: the programs whose pool accounts it follows by owner (each with
 * the filter lists that select them, as the RPC bootstrap found them), and the accounts it follows
 * by address (every pool and every account a pool depends on). The owner an address-followed
 * account must keep is the one it was written with last. Pure data, no IO.
 */
import type { WatchedProgram } from '../rpc/rpc-bootstrap';

export interface WatchSet {
  /** programs followed by owner */
  readonly owners: ReadonlySet<string>;
  readonly programs: readonly WatchedProgram[];
  /** accounts followed by address */
  readonly addresses: ReadonlySet<string>;
  /** the owner an address-followed account was last written with (undefined: never written) */
  ownerOf(address: string): string | undefined;
}

export class MutableWatchSet implements WatchSet {
  readonly owners: Set<string>;
  readonly addresses: Set<string>;

  constructor(
    readonly programs: readonly WatchedProgram[],
    addresses: Iterable<string>,
    readonly ownerOf: (address: string) => string | undefined,
  ) {
    this.owners = new Set(programs.map((p) => p.programId));
    this.addresses = new Set(addresses);
  }

  /** follow these accounts by address too; returns those that were not followed yet */
  addAddresses(addresses: Iterable<string>): string[] {
    const added: string[] = [];
    for (const a of addresses) {
      if (this.addresses.has(a)) continue;
      this.addresses.add(a);
      added.push(a);
    }
    return added;
  }
}
