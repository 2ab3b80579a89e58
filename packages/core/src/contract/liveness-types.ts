/** The liveness of clients as the contract shows it: registering, and what reads back. */

/** How a client registers its liveness. */
export interface RegisterOptions {
  /**
   * The membership group of an engine (engines with the same group split the id space);
   * absent for a plain client, which owns no partition.
   */
  readonly group?: string;
  /**
   * An engine's pools as they are at each heartbeat, written into its liveness record for
   * people (`instanceRecords`, the console): never used to judge liveness.
   */
  readonly load?: () => readonly PoolLoad[];
}

/** One pool of an engine at its last heartbeat: its workers, busy and idle, and its queue. */
export interface PoolLoad {
  readonly name: string;
  readonly workers: number;
  readonly busy: number;
  readonly idle: number;
  readonly queued: number;
}

/** A liveness record as it reads now (`FatesStore.instanceRecords`), for people. */
export interface InstanceRecordView {
  readonly lockId: string;
  readonly instanceId: string;
  readonly group?: string;
  /** It closed cleanly: it holds nothing. */
  readonly gone: boolean;
  readonly timeoutMs: number;
  /** Since its last heartbeat, by the store's clock (as the writer and this client know it). */
  readonly lastHeartbeatMsAgo?: number;
  /** Its last heartbeat is within its timeout. A hint for a listing, not a judgement. */
  readonly current: boolean;
  /** An engine's pools at its last heartbeat (absent for plain clients and older engines). */
  readonly pools?: readonly PoolLoad[];
}

/** An instance this client has observed live. */
export interface LiveInstance {
  readonly lockId: string;
  readonly instanceId: string;
  /** The engine's membership group; undefined for a plain client. */
  readonly group?: string;
}
