/**
 * The `api-keys` topic on the log: the projection every router and stream instance keeps (read
 * to the end before the instance serves, then tailed, so a change reaches it within the log's
 * delivery time), and the reads and appends the keys CLI makes beside a running service.
 */
import { decodeApiKeyRecord, encodeApiKeyRecord, type ApiKeyRecord } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogPort, Positions, Subscription } from '@app/log';
import { ApiKeyRegistry } from './api-key';

/** every record of the topic applied to a registry (the CLI's view of the keys) */
export async function readApiKeys(log: LogPort): Promise<ApiKeyRegistry> {
  await log.ensureTopic(TOPICS.apiKeys);
  const registry = new ApiKeyRegistry();
  const end = await log.endPositions(TOPICS.apiKeys);
  const from: Positions = {};
  for (;;) {
    const batch = await log.read(TOPICS.apiKeys, from, 1000);
    for (const r of batch) {
      registry.apply(decodeApiKeyRecord(r.value));
      from[String(r.partition)] = (BigInt(r.offset) + 1n).toString();
    }
    const done = Object.entries(end).every(([p, o]) => BigInt(from[p] ?? '0') >= BigInt(o));
    if (batch.length === 0 || done) return registry;
  }
}

export async function appendApiKey(log: LogPort, r: ApiKeyRecord): Promise<void> {
  await log.ensureTopic(TOPICS.apiKeys);
  await log.append(TOPICS.apiKeys, [{ key: r.id, value: encodeApiKeyRecord(r) }]);
}

/** the live projection: `start` resolves once every record already on the log is applied */
export class ApiKeysFeed {
  readonly registry = new ApiKeyRegistry();
  private sub: Subscription | undefined;

  /**
   * @param onBadRecord a record that does not decode: reported, skipped (it grants nothing)
   * @param onChange a record applied once the feed had caught up (a key created or changed while running)
   */
  constructor(
    private readonly onBadRecord: (e: Error) => void,
    private readonly onChange: (r: ApiKeyRecord) => void = () => {},
  ) {}

  async start(log: LogPort): Promise<void> {
    await log.ensureTopic(TOPICS.apiKeys);
    const end = await log.endPositions(TOPICS.apiKeys);
    const seen: Positions = {};
    const caughtUp = (): boolean => Object.entries(end).every(([p, o]) => BigInt(seen[p] ?? '0') >= BigInt(o));
    let live = false;
    let ready!: () => void;
    const whenReady = new Promise<void>((r) => (ready = () => ((live = true), r())));
    if (caughtUp()) ready();
    this.sub = await log.subscribe(TOPICS.apiKeys, { from: 'beginning' }, (records) => {
      for (const rec of records) {
        try {
          const r = decodeApiKeyRecord(rec.value);
          this.registry.apply(r);
          if (live) this.onChange(r);
        } catch (e) {
          this.onBadRecord(e as Error);
        }
        seen[String(rec.partition)] = (BigInt(rec.offset) + 1n).toString();
      }
      if (caughtUp()) ready();
    });
    await whenReady;
  }

  async stop(): Promise<void> {
    await this.sub?.close();
    this.sub = undefined;
  }
}
