import type { TxError } from '../contract/types.js';
import type { FateId, FateKey } from '../ids.js';
import type { JsonValue } from '../json.js';
import type { Status } from '../status.js';

export interface SeedOptions {
  readonly opName: string;
  /** Deduplicates: seeding the same key again returns the existing transaction. */
  readonly key?: FateKey;
  /** Delete the transaction once it finished. */
  readonly autoClean?: boolean;
  /** Keep it this long once finished, ms, instead of the engine's `retentionMs`. */
  readonly retainMs?: number;
  /** No engine takes it before this many ms after the insert, by the store's clock. */
  readonly delayMs?: number;
  /**
   * No engine takes it before this time (epoch ms or a `Date`), converted to a delay with
   * this client's estimate of the store's clock (`store.now()`). Not with `delayMs`.
   */
  readonly runAt?: number | Date;
  /**
   * -5..5, default 0: within its partition an engine takes higher priorities first, and
   * every fourth read of its finder goes on through the whole partition so lower ones are
   * never starved (`contract/priority.ts`). Fixed at the seed.
   */
  readonly priority?: number;
}

/** How a transaction ended, as `waitForCompletion` reports it. */
export interface FateResult {
  readonly id: FateId;
  /** SUCCESSFUL or FAILED; UNKNOWN when it was deleted (e.g. auto-cleaned) before it was seen. */
  readonly status: Status;
  readonly returnValue?: JsonValue;
  readonly error?: TxError;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}
