/**
 * Crash-test writer (run as a child process by test/log.crash.spec.ts):
 *   node -r ./test/support/ts-register.js test/support/crash-writer.ts <dataDir> [topic] [batchSize]
 * Appends batches to an EmbeddedLog forever and prints `ack <first> <last>` on stdout as soon as
 * each append resolves (and `begin <first>` just before it calls append) (stdout to a pipe is synchronous on Linux, so a printed ack was committed).
 * A record's key and value are derived from its offset (see makeValue / verifyRecord), so the
 * parent can check every visible record after killing this process with SIGKILL.
 */
import * as zlib from 'zlib';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';

const HEADER = 12; // 8 bytes offset (BE) + 4 bytes payload length
const DIGEST = 4; // crc32 of header + payload

export function keyFor(offset: number): string {
  return `k${offset % 13}`;
}

/** The value for the record at `offset`: header, payload derived from the offset, crc32 of both. */
export function makeValue(offset: number): Buffer {
  const len = 150 + (offset % 300);
  // an 8-byte pattern derived from the offset, repeated: cheap, so the writer spends its time in append
  const pattern = Buffer.alloc(8);
  pattern.writeUInt32BE((offset * 2654435761) >>> 0, 0);
  pattern.writeUInt32BE((offset ^ 0x5bd1e995) >>> 0, 4);
  const payload = Buffer.alloc(len, pattern);
  const header = Buffer.alloc(HEADER);
  header.writeBigUInt64BE(BigInt(offset), 0);
  header.writeUInt32BE(len, 8);
  const body = Buffer.concat([header, payload]);
  const crc = Buffer.alloc(DIGEST);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0, 0);
  return Buffer.concat([body, crc]);
}

/** null when the record at `offset` is intact, else what is wrong with it. */
export function verifyRecord(offset: number, key: string, value: Buffer): string | null {
  if (key !== keyFor(offset)) return `offset ${offset}: key ${JSON.stringify(key)} != ${keyFor(offset)}`;
  if (value.length < HEADER + DIGEST) return `offset ${offset}: value too short (${value.length} bytes)`;
  const body = value.subarray(0, value.length - DIGEST);
  const digest = value.subarray(value.length - DIGEST);
  if ((zlib.crc32(body) >>> 0) !== digest.readUInt32BE(0)) return `offset ${offset}: checksum mismatch`;
  if (value.readBigUInt64BE(0) !== BigInt(offset)) return `offset ${offset}: header names offset ${value.readBigUInt64BE(0)}`;
  if (value.readUInt32BE(8) !== body.length - HEADER) return `offset ${offset}: header length mismatch`;
  if (!value.equals(makeValue(offset))) return `offset ${offset}: content differs from what was written`;
  return null;
}

async function main(): Promise<void> {
  const [dataDir, topic = 'crash', batchArg = '500'] = process.argv.slice(2);
  if (!dataDir) throw new Error('usage: crash-writer.ts <dataDir> [topic] [batchSize]');
  const batchSize = Number(batchArg);
  const log = new EmbeddedLog({ dataDir });
  await log.ensureTopic(topic);
  let next = Number((await log.endPositions(topic))['0']);
  process.stdout.write(`start ${next}\n`);
  for (;;) {
    const messages = [];
    for (let i = 0; i < batchSize; i++) messages.push({ key: keyFor(next + i), value: makeValue(next + i) });
    process.stdout.write(`begin ${next}\n`);
    const results = await log.append(topic, messages);
    const first = Number(results[0].offset);
    const last = Number(results[results.length - 1].offset);
    if (first !== next || last !== next + batchSize - 1) {
      process.stderr.write(`unexpected offsets ${first}..${last}, expected from ${next}\n`);
      process.exit(2);
    }
    process.stdout.write(`ack ${first} ${last}\n`);
    next = last + 1;
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`crash-writer failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
