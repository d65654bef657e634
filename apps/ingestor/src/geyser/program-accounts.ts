/**
 * What the geyser source asks of the router's program modules about a raw account: whether it is
 * a followed program's pool account (the RPC bootstrap's own test), and whether a program knows
 * the layout of an account followed by address. The modules decode; nothing is kept.
 */
import { VENUES } from '@app/pools';
import { poolAccountProblem } from '../rpc/rpc-bootstrap';
import type { LayoutCheck } from './stream-message';

const VENUE_BY_PROGRAM = new Map(VENUES.map((m) => [m.programId, m]));

export class ProgramAccounts implements LayoutCheck {
  private readonly followed: ReadonlySet<string>;

  /** `followed`: the programs whose pool accounts come by owner */
  constructor(followed: Iterable<string>) {
    this.followed = new Set(followed);
  }

  poolProblem(address: string, owner: string, data: Buffer): string | null {
    return poolAccountProblem({ address, owner, lamports: 0n, data }, this.followed);
  }

  accountKind(owner: string, data: Buffer): string | null {
    return VENUE_BY_PROGRAM.get(owner)?.accountKind(data) ?? null;
  }

  isProgram(owner: string): boolean {
    return VENUE_BY_PROGRAM.has(owner);
  }
}
