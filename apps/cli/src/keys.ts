/**
 * npm run -s keys -- <command>   (on the log named by LOG_DRIVER / DATA_DIR / KAFKA_*, also
 * beside a running service)
 *
 *   create --name NAME [--tier TIER]   a new key: prints {"id", "key"}, the only time the key is shown
 *   list                               one {"id", "name", "tier", "state"} per key
 *   disable ID | enable ID | revoke ID a key's new state: prints {"id", "state"} (revoked is final)
 *
 * The log receives the key's SHA-256 hash, id, name, tier and state, never the key. Output is
 * JSON on stdout; a failure is one line on stderr, exit status 2.
 */
import { generateApiKey, hashApiKey } from '@app/auth';
import { appendApiKey, readApiKeys } from '@app/auth';
import { isTierName, type ApiKeyRecord, type ApiKeyState } from '@app/contracts';
import { loadConfig, type AppConfig } from '@app/config';
import { createLog } from '@app/log';
import type { LogPort } from '@app/log';
import { CliError, option, parseCliArgs, runCli, type CliArgs } from './args';

const NEXT_STATE: Record<string, ApiKeyState> = { disable: 'disabled', enable: 'active', revoke: 'revoked' };

export async function keysCommand(argv: readonly string[], config: AppConfig, log: LogPort, out: (o: object) => void): Promise<void> {
  const args = parseCliArgs(argv);
  if (args.command === 'create') return create(args, config, log, out);
  if (args.command === 'list') {
    for (const r of (await readApiKeys(log)).list()) out({ id: r.id, name: r.name, tier: r.tier, state: r.state });
    return;
  }
  const next = NEXT_STATE[args.command];
  if (next === undefined) throw new CliError('usage: keys create --name NAME [--tier TIER] | list | disable ID | enable ID | revoke ID');
  const id = args.positional[0];
  if (id === undefined) throw new CliError(`usage: keys ${args.command} ID`);
  const current = (await readApiKeys(log)).get(id);
  if (current === undefined) throw new CliError(`no key with id ${id}`);
  if (current.state === 'revoked') throw new CliError(`key ${id} is revoked: a revoked key stays revoked`);
  await appendApiKey(log, { ...current, state: next, at: Date.now() });
  out({ id, state: next });
}

async function create(args: CliArgs, config: AppConfig, log: LogPort, out: (o: object) => void): Promise<void> {
  const name = option(args, 'name');
  if (name.length > 200) throw new CliError('--name is at most 200 characters');
  const tier = args.options.tier ?? 'default';
  if (!isTierName(tier) || config.rateLimitTiers[tier] === undefined) {
    throw new CliError(`unknown tier ${JSON.stringify(tier)}: the tiers are ${Object.keys(config.rateLimitTiers).join(', ')} (RATE_LIMIT_TIERS)`);
  }
  const { id, key } = generateApiKey(config.apiKeyPrefix);
  const record: ApiKeyRecord = { id, hash: hashApiKey(key), name, tier, state: 'active', at: Date.now() };
  await appendApiKey(log, record);
  out({ id, key });
}

if (require.main === module) {
  runCli(async (out) => {
    const config = loadConfig();
    const log = createLog(config);
    try {
      await keysCommand(process.argv.slice(2), config, log, out);
    } finally {
      await log.close();
    }
  });
}
