import { topicConfigEntries } from './topic-configs';

describe('Kafka topic configs from retention', () => {
  it('a compacted topic keeps its history for the window (min.compaction.lag.ms), then the latest record per key', () => {
    expect(topicConfigEntries({ retentionMs: 259_200_000, compact: true })).toEqual([
      { name: 'cleanup.policy', value: 'compact' },
      { name: 'min.compaction.lag.ms', value: '259200000' },
    ]);
    expect(topicConfigEntries({ retentionMs: null, compact: true })).toEqual([{ name: 'cleanup.policy', value: 'compact' }]);
  });

  it('the other topics delete segments older than retention.ms (-1: forever)', () => {
    expect(topicConfigEntries({ retentionMs: 900_000, compact: false })).toEqual([
      { name: 'cleanup.policy', value: 'delete' },
      { name: 'retention.ms', value: '900000' },
    ]);
    expect(topicConfigEntries({ retentionMs: null, compact: false })).toContainEqual({ name: 'retention.ms', value: '-1' });
  });
});
