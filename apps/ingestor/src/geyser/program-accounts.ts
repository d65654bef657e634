/**
 * What the geyser source asks of the router's program modules about a raw account: whether its
 * program knows the layout, and, for a pool account, the accounts its quote depends on. The
 * modules decode; nothing is kept.
 */
import { DEFAULT_PROGRAM_MODULES } from '../../../router/src/projection/projection';
import { ProgramRegistry, type AccountView, type ProgramModule } from '../../../router/src/projection/program-registry';
import type { PoolUpdate } from '../../../../libs/contracts/src/pool-update';
import type { LayoutCheck } from './stream-message';

export class ProgramAccounts implements LayoutCheck {
  private readonly registry: ProgramRegistry;

  constructor(modules: readonly ProgramModule[] = DEFAULT_PROGRAM_MODULES) {
    this.registry = new ProgramRegistry(modules);
  }

  /** the programs the router quotes */
  programIds(): string[] {
    return this.registry.modules().map((m) => m.programId);
  }

  accountKind(owner: string, data: Buffer): string | null {
    return this.registry.get(owner)?.accountKind(data) ?? null;
  }

  /** the accounts a pool account's quote depends on; [] when it is not a pool account; throws when the pool does not decode */
  dependencies(u: PoolUpdate): string[] {
    const m = this.registry.get(u.owner);
    if (!m || u.data === null || m.accountKind(u.data) !== m.poolAccountKind) return [];
    return m.poolDependencies(u.address, view(u));
  }
}

function view(u: PoolUpdate): AccountView {
  const v: AccountView = {
    address: u.address,
    owner: u.owner,
    data: u.data!,
    slot: u.slot,
    memo: <T>(_key: string, decode: (a: AccountView) => T): T => decode(v),
    peek: () => undefined,
    previous: undefined,
  };
  return v;
}
