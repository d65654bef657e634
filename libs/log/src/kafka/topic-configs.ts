/**
 * The Kafka topic configuration a topic is created with, from its retention (see the README's
 * "Log retention"): a topic whose key's latest record is all a reader rebuilding state needs
 * (pool-updates: the latest write of each account) is compacted, keeping its whole history for
 * the retention window (min.compaction.lag.ms) so replays and audits within it still work; the
 * other topics delete segments older than the window (retention.ms). `null`: kept forever.
 */
export interface KafkaTopicRetention {
  /** ms; null: forever */
  retentionMs: number | null;
  /** compact by key instead of deleting by age */
  compact: boolean;
}

export function topicConfigEntries(r: KafkaTopicRetention): Array<{ name: string; value: string }> {
  if (r.compact) {
    const entries = [{ name: 'cleanup.policy', value: 'compact' }];
    if (r.retentionMs !== null) entries.push({ name: 'min.compaction.lag.ms', value: String(r.retentionMs) });
    return entries;
  }
  return [
    { name: 'cleanup.policy', value: 'delete' },
    { name: 'retention.ms', value: r.retentionMs === null ? '-1' : String(r.retentionMs) },
  ];
}
