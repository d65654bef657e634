/**
 * npm run replay -- <command> [options]   (reads the log named by LOG_DRIVER / DATA_DIR / KAFKA_*)
 *
 *   quote  --inputMint M --outputMint M --amount N --swapMode ExactIn|ExactOut [--slippageBps B]
 *          [--at-slot S | --at-position P:O[,P:O]] [--feeBps F [--feeRoutes all|multi-hop]]
 *          [--platformFeeBps F]
 *          the quote the router would have served on the state at that point (default: the end),
 *          the aggregator fee included as FEE_BPS / FEE_ROUTES configure it (--feeBps overrides;
 *          0: none), and a request's integrator fee (--platformFeeBps)
 *   state  [--at-slot S | --at-position P:O] [--pool ADDRESS]
 *          projection summary at that point; with --pool, that pool's market entry and the raw
 *          accounts (address, owner, slot, bytes as base64) it was built from
 *   audit  [--id QUOTE_ID | --last N]
 *          re-derive served quotes (topic quotes-served) on the state at their log position and
 *          compare them with what was served; exit code 1 on any mismatch
 *
 * Output is JSON on stdout; errors (an option the command does not know among them) go to stderr
 * with exit code 2. A replay starts from the newest
 * projection snapshot at or before its point (SNAPSHOT_DIR) and reports its progress on stderr.
 */
import { loadConfig, type AppConfig } from '@app/config';
import { aggregatorFeeOf, withPlatformFee, type FeeSchedule } from '../quote/aggregator-fee';
import { createLog } from '@app/log';
import type { LogPort } from '@app/log';
import { isPublicKey } from '@app/solana';
import { auditServedQuotes } from './audit';
import { parsePosition, replayProjection, ReplayError, type ReplayOptions, type ReplayPoint } from './replay';
import { snapshotDirOf } from '@app/log';
import { TOPICS } from '@app/contracts';
import { ProjectionSnapshots } from '../projection/projection-snapshots';
import { quoteOn } from './quote-on';

type Args = Record<string, string>;

function parseArgs(argv: string[]): { command: string; args: Args } {
  const [command, ...rest] = argv;
  const args: Args = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (!a.startsWith('--')) throw new ReplayError(`unexpected argument "${a}"`);
    const value = rest[i + 1];
    if (value === undefined || value.startsWith('--')) throw new ReplayError(`option ${a} needs a value`);
    args[a.slice(2)] = value;
    i++;
  }
  return { command: command ?? '', args };
}

function pointOf(args: Args): ReplayPoint {
  if (args['at-slot'] !== undefined && args['at-position'] !== undefined) throw new ReplayError('give --at-slot or --at-position, not both');
  if (args['at-slot'] !== undefined) {
    if (!/^\d+$/.test(args['at-slot'])) throw new ReplayError('--at-slot must be a non-negative integer');
    return { slot: Number(args['at-slot']) };
  }
  if (args['at-position'] !== undefined) return { position: parsePosition(args['at-position']) };
  return 'end';
}

function need(args: Args, name: string): string {
  const v = args[name];
  if (v === undefined) throw new ReplayError(`missing --${name}`);
  return v;
}

/** the options each command takes */
const OPTIONS: Record<string, readonly string[]> = {
  quote: ['inputMint', 'outputMint', 'amount', 'swapMode', 'slippageBps', 'at-slot', 'at-position', 'feeBps', 'feeRoutes', 'platformFeeBps'],
  state: ['at-slot', 'at-position', 'pool'],
  audit: ['id', 'last'],
};

/** an option the command does not take is refused, never ignored */
function checkOptions(command: string, args: Args): void {
  const known = OPTIONS[command];
  if (known === undefined) return;
  for (const name of Object.keys(args)) if (!known.includes(name)) throw new ReplayError(`unknown option --${name} for ${command}`);
}

/** the fees of a replayed quote: the aggregator fee (--feeBps / --feeRoutes, else the configuration's) and --platformFeeBps */
function feeOf(args: Args, config: AppConfig): FeeSchedule | null {
  const platform = args.platformFeeBps;
  if (platform !== undefined && (!/^\d+$/.test(platform) || Number(platform) > 1000)) throw new ReplayError('--platformFeeBps must be an integer from 0 to 1000');
  return withPlatformFee(aggregatorFeeArgs(args, config), platform === undefined ? undefined : Number(platform));
}

function aggregatorFeeArgs(args: Args, config: AppConfig): FeeSchedule | null {
  if (args.feeBps === undefined) {
    if (args.feeRoutes !== undefined) throw new ReplayError('--feeRoutes needs --feeBps');
    const fee = aggregatorFeeOf(config);
    return fee === null ? null : { bps: fee.bps, routes: fee.routes };
  }
  if (!/^\d+$/.test(args.feeBps) || Number(args.feeBps) > 1000) throw new ReplayError('--feeBps must be an integer from 0 to 1000');
  const routes = args.feeRoutes ?? 'all';
  if (routes !== 'all' && routes !== 'multi-hop') throw new ReplayError('--feeRoutes must be all or multi-hop');
  return Number(args.feeBps) === 0 ? null : { bps: Number(args.feeBps), routes };
}

/** stderr: progress and skipped snapshots (stdout carries only the JSON answer) */
const toStderr = (m: string): void => void process.stderr.write(`replay: ${m}\n`);

function replayOptions(config: AppConfig): ReplayOptions {
  const settings = { dir: snapshotDirOf(config), every: 0, intervalMs: 0, keep: config.snapshotKeep };
  return { snapshots: new ProjectionSnapshots(settings, TOPICS.poolUpdates, { log: toStderr, warn: toStderr }), progress: toStderr };
}

async function run(log: LogPort, command: string, args: Args, config: AppConfig): Promise<number> {
  const maxHops = config.maxHops;
  const options = replayOptions(config);
  checkOptions(command, args);
  switch (command) {
    case 'quote': {
      const r = await replayProjection(log, pointOf(args), 5000, undefined, options);
      const result = quoteOn(r.projection, {
        inputMint: need(args, 'inputMint'),
        outputMint: need(args, 'outputMint'),
        amount: need(args, 'amount'),
        swapMode: need(args, 'swapMode'),
        slippageBps: args.slippageBps,
      }, maxHops, feeOf(args, config));
      console.log(JSON.stringify({ replayedTo: replayedTo(r), ...result }, null, 2));
      return 'error' in result ? 1 : 0;
    }
    case 'state': {
      const r = await replayProjection(log, pointOf(args), 5000, undefined, options);
      const p = r.projection;
      const out: Record<string, unknown> = { replayedTo: replayedTo(r), stats: p.stats };
      if (args.pool !== undefined) {
        if (!isPublicKey(args.pool)) throw new ReplayError(`--pool ${args.pool} is not a base58 public key`);
        const market = p.markets().find((m) => m.address === args.pool);
        if (!market) throw new ReplayError(`no pool ${args.pool} in the log up to that point`);
        const deps = p.dependenciesOf(args.pool);
        out.market = market;
        out.accounts = [args.pool, ...deps].map((address) => {
          const a = p.account(address);
          return a ? { address, owner: a.owner, slot: a.slot, data: a.data.toString('base64') } : { address, missing: true };
        });
      }
      console.log(JSON.stringify(out, null, 2));
      return 0;
    }
    case 'audit': {
      const report = await auditServedQuotes(log, { id: args.id, last: args.last === undefined ? undefined : Number(args.last), maxHops, replay: options });
      console.log(JSON.stringify(report, null, 2));
      return report.mismatched > 0 ? 1 : 0;
    }
    default:
      throw new ReplayError(`unknown command "${command}": expected quote, state or audit`);
  }
}

/** where the replayed state stands: its position, slot, the records read, and the snapshot it started from */
function replayedTo(r: Awaited<ReturnType<typeof replayProjection>>): Record<string, unknown> {
  return { position: r.position, slot: r.projection.slot, records: r.records, ...(r.fromSnapshot ? { fromSnapshot: r.fromSnapshot } : {}) };
}

async function main(): Promise<void> {
  let log: LogPort | undefined;
  try {
    const { command, args } = parseArgs(process.argv.slice(2));
    const config = loadConfig();
    log = createLog(config);
    process.exitCode = await run(log, command, args, config);
  } catch (e) {
    console.error(`replay: ${(e as Error).message}`);
    process.exitCode = 2;
  } finally {
    await log?.close().catch(() => undefined);
  }
}

void main();
