import type { FaultDecision } from './faults.js';
import type { StepSpec } from './steps.js';

/** One engine of a world: its pools and its scanner. */
export interface EngineSpec {
  /** `one`: one pool of `workers`; `two`: op `b` in a pool of its own, the rest in a catch-all. */
  readonly layout: 'one' | 'two';
  readonly workers: number;
  readonly scanner: 'range' | 'hash';
  /** The engine option `claimOnFinish`; absent: on (only `priorityScenarios` draw it off). */
  readonly claimOnFinish?: false;
}

export interface TxSpec {
  readonly key?: string;
  readonly op: 'a' | 'b';
  readonly autoClean: boolean;
  readonly steps: readonly StepSpec[];
  /** Seeded with this `delayMs` (absent or 0: none). */
  readonly delayMs?: number;
  /**
   * Seeded with `runAt` this many ms after the run began, by the store's clock (negative: a
   * time already past, runnable at once); only `runAtScenarioArb` draws it.
   */
  readonly runAt?: number;
  /** Seeded with this priority (absent: the default, 0); only `priorityScenarios` draw it. */
  readonly priority?: number;
  /** Seeded as `awaitChildren(these children, steps)` (issue 25). */
  readonly children?: ChildrenSpec;
}

/** The children of a parent: child `c<i>` (op `a`) runs `kids[i]`. */
export interface ChildrenSpec {
  readonly kids: ReadonlyArray<readonly StepSpec[]>;
  readonly continueOnFailure: boolean;
  readonly recheckMs: number;
}

/** A schedule `tick` (op `tick`) every engine registers (issue 25), due every `everyS` s. */
export interface ScheduleSpec {
  readonly everyS: 1 | 2;
  readonly catchUp: 'all' | 'latest';
  /** How long its transactions are kept once finished (0: the engines' next age-off). */
  readonly retainMs: number;
  readonly steps: readonly StepSpec[];
}

/** A timed command of a scenario; `at` is virtual ms from the start. */
export type Command =
  | {
      readonly at: number;
      readonly kind: 'seed';
      readonly many: boolean;
      readonly txs: readonly TxSpec[];
    }
  | {
      readonly at: number;
      readonly kind: 'admin';
      readonly op: 'cancel' | 'fail' | 'delete' | 'forceDelete' | 'show';
      /** Which seeded transaction (modulo how many there are then); a key names a keyed one. */
      readonly target: number;
    }
  | { readonly at: number; readonly kind: 'ageOff'; readonly retentionMs: number }
  | {
      readonly at: number;
      readonly kind: 'shutdown';
      readonly engine: number;
      readonly timeoutMs: number | undefined;
    }
  | { readonly at: number; readonly kind: 'crash' | 'restart'; readonly engine: number }
  | {
      readonly at: number;
      readonly kind: 'pause' | 'stall';
      readonly engine: number;
      readonly ms: number;
    };

/** Everything one run does: the world, the commands, and the fault plan. */
export interface Scenario {
  /** Salts the world's deterministic randomness (ids, lock ids, reservations). */
  readonly salt: number;
  readonly livenessTimeoutMs: number;
  /** The engines' retention for age-off (their own sweep every `ageOffCheckMs`). */
  readonly retentionMs: number;
  readonly ageOffCheckMs: number;
  readonly engines: readonly EngineSpec[];
  readonly commands: readonly Command[];
  readonly faults: readonly FaultDecision[];
  /** A cluster-wide concurrency limit on op `b` in every engine (issue 25); none when absent. */
  readonly limitB?: number;
  /** A cluster-wide rate limit on op `b` (starts per second); only `rateLimitScenarios` draw it. */
  readonly perSecondB?: number;
  /** Checks (7): no seeded transaction starved by higher priorities (`priorities.ts`). */
  readonly starvation?: boolean;
  /** A schedule every engine registers; none when absent. */
  readonly schedule?: ScheduleSpec;
  /**
   * Calls of one kind (`write`, `tryReserve`) that one client makes at one simulated instant
   * share one fault decision, as the one request of a batching backend (PostgreSQL's and
   * Redis's batches of one tick) delays, fails or loses them together. Only `batchScenarios` set it.
   */
  readonly batches?: boolean;
}
