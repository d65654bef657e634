/**
 * Preloaded (`-r`) into the stream app the split benchmark starts in its own process (with
 * --expose-gc and an IPC channel): answers `{ type: 'heap' }` with the process's heap in use after
 * a full collection, so the benchmark's memory per subscription counts the stream hub there too.
 * Benchmark-only: the product never loads it.
 */
export interface HeapAnswer {
  type: 'heap';
  heapUsed: number;
}

if (process.send) {
  process.on('message', (m: { type?: string } | null) => {
    if (m?.type !== 'heap') return;
    global.gc?.();
    const answer: HeapAnswer = { type: 'heap', heapUsed: process.memoryUsage().heapUsed };
    process.send!(answer);
  });
  // the channel alone does not keep the process alive
  process.channel?.unref();
}
