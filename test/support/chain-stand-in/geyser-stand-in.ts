/**
 * A STAND-IN for a Yellowstone gRPC (Geyser) endpoint, for tests and benchmarks: no Solana
 * validator with the Geyser plugin can run here. It is a real gRPC server (@grpc/grpc-js, HTTP/2)
 * serving the `geyser.Geyser` service with the message codecs that @triton-one/yellowstone-grpc
 * itself ships (its generated protobuf code): the bytes on the wire are those of the real service,
 * so the package's own client talks to it unchanged.
 *
 * What it serves: the account writes and slots of a MarketChain (the simulated market run as the
 * chain, `serve(chain)`), or what a test publishes through `publishAccount` / `publishSlot`.
 *  - Subscribe (bidi): every request replaces the subscription's filters, as the real server does;
 *    an account filter matches when its `account` list (if any) holds the pubkey AND its `owner`
 *    list (if any) holds the owner AND every data filter (datasize, memcmp) holds. A request with
 *    `ping` is answered by a pong with its id. `from_slot` on a request replays the retained
 *    messages of slots >= from_slot before the live ones; older than the retention: the call ends
 *    with INVALID_ARGUMENT, as the real server's "not available" answer.
 *  - Ping, GetSlot, GetLatestBlockhash, GetBlockHeight, GetVersion, IsBlockhashValid,
 *    SubscribeReplayInfo (unary).
 *  - `x-token` metadata checked when the stand-in is given a token (UNAUTHENTICATED otherwise).
 *  - Faults for tests: `dropAll()` ends every open Subscribe call with UNAVAILABLE;
 *    `injectRaw(bytes)` sends undecodable bytes on every open call.
 */
import { BinaryReader } from '@bufbuild/protobuf/wire';
import * as grpc from '@grpc/grpc-js';
import {
  CommitmentLevel,
  GetBlockHeightRequest,
  GetBlockHeightResponse,
  GetLatestBlockhashRequest,
  GetLatestBlockhashResponse,
  GetSlotRequest,
  GetSlotResponse,
  GetVersionRequest,
  GetVersionResponse,
  IsBlockhashValidRequest,
  IsBlockhashValidResponse,
  PingRequest,
  PongResponse,
  SlotStatus,
  SubscribeReplayInfoRequest,
  SubscribeReplayInfoResponse,
  SubscribeRequest,
  SubscribeRequest_AccountsEntry,
  SubscribeRequest_SlotsEntry,
  SubscribeRequestFilterAccounts,
  SubscribeUpdate,
} from '@triton-one/yellowstone-grpc';
import { base58Decode, base58Encode } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import type { ChainAccountChange, MarketChain } from './market-chain';

/** one account write as the chain publishes it */
export interface StandInAccount {
  pubkey: string;
  owner: string;
  lamports: bigint;
  data: Buffer;
  slot: number;
}

export interface GeyserStandInOptions {
  /** when set, Subscribe and the unary calls need this `x-token` metadata */
  xToken?: string;
  /** slots of messages kept for `from_slot` replays (default 2,000) */
  retentionSlots?: number;
}

interface Codec<T> {
  encode(m: T): { finish(): Uint8Array };
  decode(b: Uint8Array): T;
}

/** encoded bytes pass through as they are (lets a test put raw bytes on the wire) */
type Wire = SubscribeUpdate | Buffer;

function unary<Req, Res>(name: string, req: Codec<Req>, res: Codec<Res>): grpc.MethodDefinition<Req, Res> {
  return {
    path: `/geyser.Geyser/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (m: Req) => Buffer.from(req.encode(m).finish()),
    requestDeserialize: (b: Buffer) => req.decode(b),
    responseSerialize: (m: Res) => Buffer.from(res.encode(m).finish()),
    responseDeserialize: (b: Buffer) => res.decode(b),
  };
}

/** the geyser.Geyser service, its methods' paths as in the package's proto, its codecs the package's */
const GEYSER_SERVICE = {
  subscribe: {
    path: '/geyser.Geyser/Subscribe',
    requestStream: true,
    responseStream: true,
    requestSerialize: (m: SubscribeRequest) => Buffer.from(SubscribeRequest.encode(m).finish()),
    requestDeserialize: decodeSubscribeRequest,
    responseSerialize: (m: Wire) => (Buffer.isBuffer(m) ? m : Buffer.from(SubscribeUpdate.encode(m).finish())),
    responseDeserialize: (b: Buffer) => SubscribeUpdate.decode(b),
  } as grpc.MethodDefinition<SubscribeRequest, Wire>,
  subscribeReplayInfo: unary('SubscribeReplayInfo', SubscribeReplayInfoRequest, SubscribeReplayInfoResponse),
  ping: unary('Ping', PingRequest, PongResponse),
  getLatestBlockhash: unary('GetLatestBlockhash', GetLatestBlockhashRequest, GetLatestBlockhashResponse),
  getBlockHeight: unary('GetBlockHeight', GetBlockHeightRequest, GetBlockHeightResponse),
  getSlot: unary('GetSlot', GetSlotRequest, GetSlotResponse),
  isBlockhashValid: unary('IsBlockhashValid', IsBlockhashValidRequest, IsBlockhashValidResponse),
  getVersion: unary('GetVersion', GetVersionRequest, GetVersionResponse),
} satisfies grpc.ServiceDefinition;

/** a retained message: an account write or a slot */
type Retained = { kind: 'account'; account: StandInAccount; writeVersion: bigint } | { kind: 'slot'; slot: number; parent: number | null };

interface Call {
  stream: grpc.ServerDuplexStream<SubscribeRequest, Wire>;
  accounts: [string, CompiledAccountFilter][];
  slots: string[];
  /** set once the first filter arrived (nothing is sent before) */
  active: boolean;
}

interface CompiledAccountFilter {
  accounts: Set<string> | null;
  owners: Set<string> | null;
  datasize: number[];
  memcmp: { offset: number; bytes: Buffer }[];
}

export interface StandInStats {
  /** Subscribe calls accepted, over the stand-in's life */
  subscribes: number;
  /** subscribe requests received (first ones and updates) */
  requests: number;
  pings: number;
  /** account messages sent */
  accountsSent: number;
  /** the `from_slot` of every request that carried one */
  fromSlots: number[];
  /** the commitment of the last request */
  commitment: CommitmentLevel | undefined;
  /** the last request's account filters, by name */
  lastAccountFilters: Record<string, SubscribeRequestFilterAccounts>;
}

export class GeyserStandIn {
  private readonly server = new grpc.Server();
  private readonly calls = new Set<Call>();
  private readonly retained: Retained[] = [];
  private readonly retentionSlots: number;
  private writeVersion = 0n;
  private slot = 0;
  private portNo = 0;
  readonly stats: StandInStats = { subscribes: 0, requests: 0, pings: 0, accountsSent: 0, fromSlots: [], commitment: undefined, lastAccountFilters: {} };

  constructor(private readonly opts: GeyserStandInOptions = {}) {
    this.retentionSlots = opts.retentionSlots ?? 2_000;
    this.server.addService(GEYSER_SERVICE, {
      subscribe: (stream: grpc.ServerDuplexStream<SubscribeRequest, Wire>) => this.subscribe(stream),
      subscribeReplayInfo: this.unaryHandler(() => SubscribeReplayInfoResponse.fromPartial({ firstAvailable: String(this.firstRetainedSlot()) })),
      ping: this.unaryHandler((r: PingRequest) => PongResponse.fromPartial({ count: r.count })),
      getLatestBlockhash: this.unaryHandler(() =>
        GetLatestBlockhashResponse.fromPartial({ slot: String(this.slot), blockhash: base58Encode(Buffer.alloc(32, this.slot & 0xff)), lastValidBlockHeight: String(this.slot + 150) }),
      ),
      getBlockHeight: this.unaryHandler(() => GetBlockHeightResponse.fromPartial({ blockHeight: String(this.slot) })),
      getSlot: this.unaryHandler(() => GetSlotResponse.fromPartial({ slot: String(this.slot) })),
      isBlockhashValid: this.unaryHandler(() => IsBlockhashValidResponse.fromPartial({ slot: String(this.slot), valid: true })),
      getVersion: this.unaryHandler(() => GetVersionResponse.fromPartial({ version: JSON.stringify({ version: 'geyser-stand-in' }) })),
    });
  }

  /** listen on 127.0.0.1, a random port; resolves to the endpoint URL (http://127.0.0.1:port) */
  async start(): Promise<string> {
    this.portNo = await new Promise<number>((ok, fail) =>
      this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, port) => (e ? fail(e) : ok(port))),
    );
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${this.portNo}`;
  }

  get currentSlot(): number {
    return this.slot;
  }

  /** open Subscribe calls */
  get openCalls(): number {
    return this.calls.size;
  }

  async close(): Promise<void> {
    for (const c of this.calls) c.stream.destroy();
    this.calls.clear();
    // the client keeps its HTTP/2 connection open (it has no close): a graceful shutdown would wait for it
    this.server.forceShutdown();
  }

  /** serve this chain: its writes (a closed account: no lamports, the system program's) and slots, from now on */
  serve(chain: MarketChain): void {
    this.slot = Math.max(this.slot, chain.slot);
    chain.on('account', (a: ChainAccountChange) =>
      this.publishAccount(
        a.data === null
          ? { pubkey: a.address, owner: PROGRAM_IDS.system, lamports: 0n, data: Buffer.alloc(0), slot: a.slot }
          : { pubkey: a.address, owner: a.owner, lamports: a.lamports, data: a.data, slot: a.slot },
      ),
    );
    chain.on('slot', (slot: number) => this.publishSlot(slot));
  }

  /** the chain wrote an account at `a.slot` */
  publishAccount(a: StandInAccount): void {
    const r: Retained = { kind: 'account', account: a, writeVersion: ++this.writeVersion };
    this.retain(r);
    for (const c of this.calls) if (c.active) this.send(c, r);
  }

  /** the chain reached `slot` */
  publishSlot(slot: number): void {
    const r: Retained = { kind: 'slot', slot, parent: this.slot > 0 && this.slot < slot ? this.slot : Math.max(0, slot - 1) };
    this.slot = Math.max(this.slot, slot);
    this.retain(r);
    for (const c of this.calls) if (c.active) this.send(c, r);
  }

  /** end every open Subscribe call with UNAVAILABLE (a dropped connection, as the client sees it) */
  dropAll(): void {
    for (const c of [...this.calls]) {
      this.calls.delete(c);
      c.stream.emit('error', { code: grpc.status.UNAVAILABLE, details: 'stand-in: stream dropped' });
    }
  }

  /** send these bytes, as they are, as a message on every open Subscribe call */
  injectRaw(bytes: Buffer): void {
    for (const c of this.calls) if (c.active) c.stream.write(bytes);
  }

  /** send this update, as it is, on every open Subscribe call */
  injectUpdate(u: Partial<SubscribeUpdate>): void {
    const m = SubscribeUpdate.fromPartial({ createdAt: new Date(), ...u });
    for (const c of this.calls) if (c.active) c.stream.write(m);
  }

  // ---- internals ----

  private authorized(md: grpc.Metadata): boolean {
    if (this.opts.xToken === undefined) return true;
    return md.get('x-token')[0] === this.opts.xToken;
  }

  private unaryHandler<Req, Res>(answer: (req: Req) => Res): grpc.handleUnaryCall<Req, Res> {
    return (call, cb) => {
      if (!this.authorized(call.metadata)) return cb({ code: grpc.status.UNAUTHENTICATED, details: 'stand-in: x-token rejected' });
      cb(null, answer(call.request));
    };
  }

  private subscribe(stream: grpc.ServerDuplexStream<SubscribeRequest, Wire>): void {
    if (!this.authorized(stream.metadata)) {
      stream.emit('error', { code: grpc.status.UNAUTHENTICATED, details: 'stand-in: x-token rejected' });
      return;
    }
    this.stats.subscribes++;
    const call: Call = { stream, accounts: [], slots: [], active: false };
    this.calls.add(call);
    const end = (): void => {
      this.calls.delete(call);
    };
    // the response headers go at once, as the real (tonic) server sends them: the client's
    // subscribe resolves on them, before any update
    stream.sendMetadata(new grpc.Metadata());
    stream.on('data', (req: SubscribeRequest) => this.onRequest(call, req));
    stream.on('end', () => {
      end();
      stream.end();
    });
    stream.on('error', end);
    stream.on('cancelled', end);
    stream.on('close', end);
  }

  private onRequest(call: Call, req: SubscribeRequest): void {
    this.stats.requests++;
    this.stats.commitment = req.commitment;
    this.stats.lastAccountFilters = req.accounts;
    call.accounts = Object.entries(req.accounts).map(([name, f]) => [name, compile(f)]);
    call.slots = Object.keys(req.slots);
    if (req.ping) {
      this.stats.pings++;
      call.stream.write(SubscribeUpdate.fromPartial({ filters: [], pong: { id: req.ping.id }, createdAt: new Date() }));
    }
    const wasActive = call.active;
    call.active = true;
    if (req.fromSlot !== undefined) {
      const from = Number(req.fromSlot);
      this.stats.fromSlots.push(from);
      const first = this.firstRetainedSlot();
      if (from < first) {
        this.calls.delete(call);
        call.stream.emit('error', {
          code: grpc.status.INVALID_ARGUMENT,
          details: `broadcast from ${from} is not available, last available: ${first}`,
        });
        return;
      }
      for (const r of this.retained) if (slotOf(r) >= from) this.send(call, r);
    } else if (!wasActive) {
      // a first request without from_slot: live messages only
    }
  }

  private send(call: Call, r: Retained): void {
    if (r.kind === 'slot') {
      if (call.slots.length === 0) return;
      call.stream.write(
        SubscribeUpdate.fromPartial({
          filters: call.slots,
          slot: { slot: String(r.slot), parent: r.parent === null ? undefined : String(r.parent), status: SlotStatus.SLOT_PROCESSED },
          createdAt: new Date(),
        }),
      );
      return;
    }
    const a = r.account;
    const names: string[] = [];
    for (const [name, f] of call.accounts) if (matches(f, a)) names.push(name);
    if (names.length === 0) return;
    this.stats.accountsSent++;
    call.stream.write(
      SubscribeUpdate.fromPartial({
        filters: names,
        account: {
          slot: String(a.slot),
          isStartup: false,
          account: {
            pubkey: pubkeyBytes(a.pubkey),
            owner: pubkeyBytes(a.owner),
            lamports: a.lamports.toString(),
            executable: false,
            rentEpoch: '18446744073709551615',
            data: a.data,
            writeVersion: r.writeVersion.toString(),
          },
        },
        createdAt: new Date(),
      }),
    );
  }

  private retain(r: Retained): void {
    this.retained.push(r);
    const floor = this.slot - this.retentionSlots;
    let drop = 0;
    while (drop < this.retained.length && slotOf(this.retained[drop]) < floor) drop++;
    if (drop > 1024 || drop === this.retained.length) this.retained.splice(0, drop);
  }

  private firstRetainedSlot(): number {
    const floor = this.slot - this.retentionSlots;
    const first = this.retained.length > 0 ? slotOf(this.retained[0]) : this.slot;
    return Math.max(first, floor);
  }
}

/**
 * SubscribeRequest from the wire as the real (prost-built) server reads it: a map entry that
 * carries no value holds the default filter (the generated decoder leaves such an entry out, and
 * an encoder may omit an empty message value: `slots: {name: {}}` is one).
 */
function decodeSubscribeRequest(b: Buffer): SubscribeRequest {
  const req = SubscribeRequest.decode(b);
  const r = new BinaryReader(b);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (wireType === 2 && field === 1) {
      const e = SubscribeRequest_AccountsEntry.decode(r, r.uint32());
      req.accounts[e.key] ??= SubscribeRequestFilterAccounts.fromPartial({});
    } else if (wireType === 2 && field === 2) {
      const e = SubscribeRequest_SlotsEntry.decode(r, r.uint32());
      req.slots[e.key] ??= {};
    } else {
      r.skip(wireType);
    }
  }
  return req;
}

function slotOf(r: Retained): number {
  return r.kind === 'slot' ? r.slot : r.account.slot;
}

function compile(f: SubscribeRequestFilterAccounts): CompiledAccountFilter {
  const out: CompiledAccountFilter = {
    accounts: f.account.length > 0 ? new Set(f.account) : null,
    owners: f.owner.length > 0 ? new Set(f.owner) : null,
    datasize: [],
    memcmp: [],
  };
  for (const d of f.filters) {
    if (d.datasize !== undefined) out.datasize.push(Number(d.datasize));
    if (d.memcmp) {
      const m = d.memcmp;
      const bytes = m.bytes ? Buffer.from(m.bytes) : m.base58 !== undefined ? Buffer.from(base58Decode(m.base58) ?? []) : Buffer.from(m.base64 ?? '', 'base64');
      out.memcmp.push({ offset: Number(m.offset), bytes });
    }
  }
  return out;
}

function matches(f: CompiledAccountFilter, a: StandInAccount): boolean {
  if (f.accounts && !f.accounts.has(a.pubkey)) return false;
  if (f.owners && !f.owners.has(a.owner)) return false;
  for (const n of f.datasize) if (a.data.length !== n) return false;
  for (const m of f.memcmp) {
    if (a.data.length < m.offset + m.bytes.length) return false;
    if (!a.data.subarray(m.offset, m.offset + m.bytes.length).equals(m.bytes)) return false;
  }
  return true;
}

function pubkeyBytes(key: string): Uint8Array {
  const b = base58Decode(key);
  if (b === null) throw new Error(`stand-in: ${key} is not base58`);
  return b;
}
