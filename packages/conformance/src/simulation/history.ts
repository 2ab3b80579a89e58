/** One thing that happened in a simulated run, at virtual time `t` (ms since the run began). */
export type SimEvent =
  /** A heartbeat of `lockId` sent at `sent` was answered at `t` (`ok`: the client got the reply). */
  | { t: number; e: 'beat'; lockId: string; sent: number; ok: boolean; gone: boolean }
  /** A step's `call`/`undo`/`isReady` began or ended in the process holding `lockId`. */
  | {
      t: number;
      e: 'call' | 'undo' | 'ready';
      end: boolean;
      id: string;
      index: number;
      lockId: string;
      outcome?: 'ok' | 'threw' | 'aborted';
    }
  /** A seed answered (`created` as the client was told). */
  | {
      t: number;
      e: 'seed';
      id: string;
      key?: string;
      created: boolean;
      client: string;
      op?: string;
      /** Its priority, when not the default. */
      priority?: number;
      /** Its `runAt`, ms after the run began, when it was seeded with one. */
      runAt?: number;
    }
  /** The store applied an insert of `id` that created it (deferred `deferMs` by its clock). */
  | { t: number; e: 'inserted'; id: string; deferMs?: number }
  /** A write of `client` applied that left `id` finished (SUCCESSFUL or FAILED). */
  | { t: number; e: 'finished'; id: string; status: string; client: string }
  /** The fault plan delayed (`delayMs`) or failed, lost or held the reply of a call of `client`. */
  | { t: number; e: 'fault'; client: string; op: string; fault: string; delayMs: number }
  /** A step after `awaitChildren` began and saw these children's statuses (by name). */
  | { t: number; e: 'outcomes'; id: string; lockId: string; seen: Record<string, string> }
  /** The store deleted `id`; `status` is what it held before. */
  | { t: number; e: 'deleted'; id: string; status: string; client: string }
  /**
   * An admin operation began or ended (`n`: its number, on both; `outcome`: 'ok' or the
   * error code).
   */
  | { t: number; e: 'admin'; op: string; id: string; n: number; end: boolean; outcome?: string }
  /** A process event: start, crash, shutdown begun/done, restart, pause, resume, stall. */
  | { t: number; e: 'process'; name: string; what: string; lockId?: string }
  /** A violation noticed at the instant it happened. */
  | { t: number; e: 'violation'; text: string };

/** The record of one run, in order. */
export class History {
  readonly events: SimEvent[] = [];
  /** Calls that threw, per `id:index`, across processes (what a flaky step counts). */
  readonly thrown = new Map<string, number>();
  readonly #start: number;

  constructor(start: number) {
    this.#start = start;
  }

  /** Virtual ms since the run began. */
  now(): number {
    return performance.now() - this.#start;
  }

  add(event: SimEvent): void {
    this.events.push(event);
  }

  violation(text: string): void {
    this.add({ t: this.now(), e: 'violation', text });
  }
}
