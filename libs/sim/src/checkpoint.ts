/**
 * Checkpoints of the simulated market: its whole state at a slot (pools, ticks, vaults, latent
 * prices, the random generator) in a file, so a restarted ingestor continues from the newest one
 * instead of building the market and simulating every slot since genesis again.
 *
 * The state is the market's object graph in V8's serialization (shared references kept), its
 * classes given back their prototypes on load; the file is a snapshot file (libs/log snapshots:
 * written whole or not at all, checksummed, versioned) in `<DATA_DIR>/sim/`, named by its slot,
 * and it records the SIM_* settings it was made with: a checkpoint of other settings, a newer
 * format, or a damaged file is skipped with a line saying why. The newest CHECKPOINTS_KEPT stay.
 *
 * Serializing takes a few hundred ms on the default market (BENCHMARKS.md), on the thread that
 * runs the market: the ingestor writes one every CHECKPOINT_EVERY_SLOTS slots, after a resume that
 * had to simulate, and when it stops.
 */
import { createHash } from 'crypto';
import * as path from 'path';
import * as v8 from 'v8';
import { SnapshotFiles } from '@app/log';
import { SimContext } from './context';
import { SimMarket } from './market';
import { Prng } from './prng';
import { OrcaWhirlpoolSim } from './programs/orca-whirlpool';
import { PumpSwapSim } from './programs/pump-amm';
import { PumpFunSim } from './programs/pump-fun';
import { RaydiumAmmV4Sim } from './programs/raydium-amm-v4';
import { RaydiumClmmSim } from './programs/raydium-clmm';
import { RaydiumCpmmSim } from './programs/raydium-cpmm';

const FORMAT = 'sim-market';
const VERSION = 1;
/** 10 minutes of the default market (400 ms slots) */
export const CHECKPOINT_EVERY_SLOTS = 1_500;
const CHECKPOINTS_KEPT = 2;

/** the classes of the market's object graph, by the field that holds each */
const PROTOTYPES: Record<string, object> = {
  cpmm: RaydiumCpmmSim.prototype,
  whirlpool: OrcaWhirlpoolSim.prototype,
  clmm: RaydiumClmmSim.prototype,
  ammV4: RaydiumAmmV4Sim.prototype,
  pumpSwap: PumpSwapSim.prototype,
  pumpFun: PumpFunSim.prototype,
  ctx: SimContext.prototype,
  rng: Prng.prototype,
};

export interface SimCheckpointLogger {
  log(message: string): void;
  warn(message: string): void;
}

export class SimCheckpoints {
  private readonly files: SnapshotFiles;

  constructor(
    dataDir: string,
    /** the SIM_* settings, as a string: a checkpoint is used only by a market of the same settings */
    private readonly settings: string,
    private readonly logger: SimCheckpointLogger,
  ) {
    this.files = new SnapshotFiles(path.join(dataDir, 'sim'), 'sim-market', { onWarn: (m) => logger.warn(m) });
  }

  /**
   * write the market's state now, with the digest of its last slot's records as appended
   * (slotDigest), which a resume compares with the log; the time it held the thread, in ms
   */
  async write(market: SimMarket, lastSlotDigest: string | null): Promise<{ file: string; bytes: number; serializeMs: number }> {
    const t0 = performance.now();
    const state = v8.serialize(market);
    const serializeMs = performance.now() - t0;
    const meta = { settings: this.settings, slot: market.slot, lastSlotDigest };
    const written = await this.files.write({ format: FORMAT, version: VERSION, positions: { '0': String(market.slot) }, meta }, state.length, [state]);
    this.files.prune(CHECKPOINTS_KEPT);
    return { ...written, serializeMs };
  }

  /** the market of the newest valid checkpoint at or before `slot` and its last slot's digest, or null */
  async restore(slot: number): Promise<{ market: SimMarket; lastSlotDigest: string | null } | null> {
    for (const e of this.files.list()) {
      try {
        const header = this.files.readHeader(e.file);
        if (header.meta.settings !== this.settings) {
          this.logger.warn(`skipping market checkpoint ${e.file}: made with ${String(header.meta.settings)}, not ${this.settings}`);
          continue;
        }
        if (Number(header.positions['0']) > slot) continue;
        const { payload } = await this.files.read(e.file, FORMAT, VERSION);
        const digest = header.meta.lastSlotDigest;
        return { market: revive(v8.deserialize(payload) as Record<string, unknown>), lastSlotDigest: typeof digest === 'string' ? digest : null };
      } catch (err) {
        this.logger.warn(`skipping market checkpoint ${e.file}: ${(err as Error).message}`);
      }
    }
    return null;
  }
}

/** the digest of a slot's records (their encoded values in order) */
export function slotDigest(values: readonly Buffer[]): string {
  const h = createHash('sha256');
  for (const v of values) h.update(v);
  return h.digest('hex');
}

/** the deserialized graph with its classes' prototypes back (its Buffers come back as Buffers) */
function revive(state: Record<string, unknown>): SimMarket {
  Object.setPrototypeOf(state, SimMarket.prototype);
  for (const [field, proto] of Object.entries(PROTOTYPES)) {
    const o = state[field];
    if (o === null || typeof o !== 'object') throw new Error(`checkpoint lacks the market's ${field}`);
    Object.setPrototypeOf(o, proto);
  }
  return state as unknown as SimMarket;
}
