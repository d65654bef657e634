/**
 * Test support for the pool program specs (libs/pools): real fixture accounts (../shared/fixtures)
 * and synthetic accounts as pool-updates records applied to a Projection.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PublicKey } from '@solana/web3.js';
import { encodePoolUpdate } from '@app/contracts';
import { Projection, type ProjectionRecord } from '@app/pools/projection';
import type { Venue } from '@app/pools/program-registry';

export const FIXTURES = path.resolve(__dirname, '../..', '..', 'shared', 'fixtures');

export interface RawAccount {
  address: string;
  owner: string;
  data: Buffer;
}

function key(v: unknown): string {
  return Array.isArray(v) ? new PublicKey(Uint8Array.from(v as number[])).toBase58() : String(v);
}

function bytesOf(v: unknown): Buffer {
  if (Array.isArray(v) && typeof v[0] === 'string') return Buffer.from(v[0], 'base64');
  if (Array.isArray(v)) return Buffer.from(v as number[]);
  return Buffer.from(String(v), 'base64');
}

/** A fixture account file (the formats found in fixtures/: RPC style, carbon, vixen). */
export function fixtureAccount(relative: string, address?: string): RawAccount {
  const j = JSON.parse(fs.readFileSync(path.join(FIXTURES, relative), 'utf8'));
  const acc = j.account ?? j;
  const addr = address ?? (j.pubkey !== undefined ? key(j.pubkey) : undefined);
  if (addr === undefined) throw new Error(`fixture ${relative} has no address; pass one`);
  return { address: addr, owner: key(acc.owner), data: bytesOf(acc.data) };
}

/** deterministic distinct public keys for synthetic accounts */
export function testKey(n: number): string {
  const b = Buffer.alloc(32);
  b.writeUInt32BE(n + 1, 0);
  b[31] = 7;
  return new PublicKey(b).toBase58();
}

/** Accounts written as pool-updates records, in order, onto a Projection. */
export class Feed {
  private offset = 0;
  readonly projection: Projection;

  constructor(venues?: readonly Venue[]) {
    this.projection = venues ? new Projection(venues) : new Projection();
  }

  record(a: RawAccount | { address: string; owner: string; data: null }, slot: number): ProjectionRecord {
    return {
      partition: 0,
      offset: String(this.offset++),
      value: encodePoolUpdate({ slot, address: a.address, owner: a.owner, lamports: 1n, data: a.data, source: 'fixture' }),
    };
  }

  put(accounts: readonly RawAccount[], slot = 1): this {
    for (const a of accounts) {
      const out = this.projection.apply(this.record(a, slot));
      if (!out.applied) throw new Error(`record for ${a.address} not applied: ${out.reason}`);
    }
    return this;
  }

  close(address: string, owner: string, slot = 1): this {
    this.projection.apply(this.record({ address, owner, data: null }, slot));
    return this;
  }

  market(address: string) {
    return this.projection.markets().find((m) => m.address === address);
  }
}

/** TransferFeeConfig extension bytes (type 1, 108 bytes): older fee until `newerEpoch`, newer from it. */
export function transferFeeExtension(
  newer: { bps: number; max: bigint },
  newerEpoch = 0n,
  older: { bps: number; max: bigint } = newer,
): { type: number; data: Uint8Array } {
  const b = Buffer.alloc(108);
  b.writeBigUInt64LE(0n, 72);
  b.writeBigUInt64LE(older.max, 80);
  b.writeUInt16LE(older.bps, 88);
  b.writeBigUInt64LE(newerEpoch, 90);
  b.writeBigUInt64LE(newer.max, 98);
  b.writeUInt16LE(newer.bps, 106);
  return { type: 1, data: new Uint8Array(b) };
}
