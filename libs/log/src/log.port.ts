/**
 * The log port: the one interface every app uses to talk to the message log.
 * Two adapters implement it (embedded on local disk, Kafka through kafkajs); the contract
 * suite in test/log.contract.spec.ts runs against both.
 *
 * Offsets are decimal strings (Kafka offsets are int64). A `Positions` map is keyed by
 * partition number (as a string, so it serialises as JSON unchanged).
 */

/** A record to append. Records with the same key keep their relative order. */
export interface LogMessage {
  key: string;
  value: Buffer;
}

/** A record as read back from the log. */
export interface LogRecord {
  topic: string;
  partition: number;
  /** offset of this record inside its partition */
  offset: string;
  key: string;
  value: Buffer;
  /** append time, Unix milliseconds (informational only: never used by a projection) */
  timestamp: number;
}

/** Where an appended record landed. */
export interface AppendResult {
  partition: number;
  offset: string;
}

/**
 * Offset per partition. As a *read / resume* position it means "the next offset to read"
 * (Kafka's committed-offset convention). As the *log position of an answer* it means the
 * offset of the last record applied (see Projection).
 */
export type Positions = Record<string, string>;

export type StartFrom = 'beginning' | 'end' | Positions;

export interface SubscribeOptions {
  /**
   * Consumer group. With a group, delivery starts at the group's committed positions
   * (falling back to `from` for partitions without a commit), and positions are committed
   * after each batch the handler finishes (at-least-once). Without a group, nothing is
   * committed and delivery starts at `from`.
   */
  groupId?: string;
  /** where to start when there is no committed position; default 'beginning' */
  from?: StartFrom;
  /** largest batch handed to the handler; default 1000 */
  maxBatch?: number;
  /**
   * Called once when the subscription stops on an error (the handler threw or rejected, or the
   * log failed). The failed batch is not committed. Without it the adapter reports the error
   * loudly on its own (console.error or its logger); it never crashes the process.
   */
  onError?: (error: Error) => void;
}

/** Called with records in offset order per partition; the next batch waits for the promise. */
export type BatchHandler = (records: LogRecord[]) => Promise<void> | void;

export interface Subscription {
  /** stop delivery; resolves once no handler call is in flight */
  close(): Promise<void>;
}

export interface LogPort {
  readonly driver: 'embedded' | 'kafka';

  /** make sure a topic exists (create it where allowed; otherwise rely on auto-creation) */
  ensureTopic(topic: string): Promise<void>;

  /**
   * Append a batch atomically per partition; resolves once every record is durable
   * (acknowledged), with one result per message in input order.
   */
  append(topic: string, messages: LogMessage[]): Promise<AppendResult[]>;

  /**
   * Read up to `limit` records at or after `from` (next-offset per partition; partitions not
   * listed start at their beginning). Records come in offset order within a partition.
   */
  read(topic: string, from: Positions | 'beginning', limit: number): Promise<LogRecord[]>;

  /**
   * the first offset still held, per partition (0 until retention removed anything; the end
   * offset of an empty partition): records before it are gone
   */
  beginPositions(topic: string): Promise<Positions>;

  /** the next offset that would be written, per partition (high-water marks) */
  endPositions(topic: string): Promise<Positions>;

  /** tail a topic: existing records from the start position, then new ones as they arrive */
  subscribe(topic: string, options: SubscribeOptions, handler: BatchHandler): Promise<Subscription>;

  /** commit next-offset positions for a group */
  commit(groupId: string, topic: string, positions: Positions): Promise<void>;

  /** the group's committed next-offset positions ({} when none) */
  committed(groupId: string, topic: string): Promise<Positions>;

  /** true while the log is reachable */
  ping(): Promise<boolean>;

  close(): Promise<void>;
}

/** Nest injection token for the LogPort. */
export const LOG_PORT = Symbol('LOG_PORT');
