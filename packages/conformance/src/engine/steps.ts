import { setTimeout as sleep } from 'node:timers/promises';
import type {
  FateId,
  JsonValue,
  Repo,
  RetryPolicy,
  StepContext,
  StepData,
  StepType,
} from '@fate/core';

/** What the test steps record, shared by every engine instance of a test. */
export class Recorder {
  /** Per transaction, the calls and undos in order, e.g. `call:1`, `undo:1`. */
  readonly log = new Map<FateId, string[]>();
  /** Per `id:n`, how many times step n's `call` ran. */
  readonly calls = new Map<string, number>();
  /** Idempotent side effects: `id:n` → value. */
  readonly effects = new Map<string, number>();
  /** Transactions whose deferral was already served. */
  readonly deferred = new Set<FateId>();
  /** Gates: a step whose `gate` is named waits in `call` until the gate opens. */
  readonly #gates = new Map<
    string,
    { open: () => void; opened: Promise<void>; entered: boolean }
  >();

  /** Every call and undo of every transaction, in order: `id call:n`. */
  readonly order: string[] = [];
  /** Calls running now, per transaction; a second one at once is an overlap. */
  readonly #running = new Map<FateId, number>();
  /** Transactions that had two calls running at the same time (never allowed). */
  readonly overlaps: FateId[] = [];

  /** Marks a call of `id` running until the returned function is called. */
  enter(id: FateId): () => void {
    const n = (this.#running.get(id) ?? 0) + 1;
    this.#running.set(id, n);
    if (n > 1) this.overlaps.push(id);
    return () => this.#running.set(id, (this.#running.get(id) ?? 1) - 1);
  }

  record(id: FateId, entry: string): void {
    this.order.push(`${id} ${entry}`);
    const list = this.log.get(id) ?? [];
    list.push(entry);
    this.log.set(id, list);
  }

  gate(name: string) {
    let g = this.#gates.get(name);
    if (!g) {
      let open!: () => void;
      const opened = new Promise<void>((r) => {
        open = r;
      });
      g = { open, opened, entered: false };
      this.#gates.set(name, g);
    }
    return g;
  }
}

/** A configurable step: transaction step `n` of `total`. */
export interface ScriptState {
  readonly n: number;
  readonly total: number;
  readonly failCallAt?: number;
  /** Step `failCallAt` fails only its first `failTimes` calls (of every engine of the test). */
  readonly failTimes?: number;
  /** Every step's retry policy (JSON: every error is retried). */
  readonly retry?: Omit<RetryPolicy, 'retryOn'>;
  /** Every step's `timeoutMs`. */
  readonly timeoutMs?: number;
  readonly failReadyAt?: number;
  readonly throwUndoAt?: number;
  /** Step `deferAt` (default 1) asks to wait this long once. */
  readonly deferMs?: number;
  readonly deferAt?: number;
  /** The error of `failCallAt` has a `TypeError` with this message as its cause. */
  readonly failCause?: string;
  /** Step `gateAt` waits in `call` for gate `gate`. */
  readonly gate?: string;
  readonly gateAt?: number;
  /** Step `readyGateAt`'s `isReady` waits for gate `readyGate` (an async readiness probe). */
  readonly readyGate?: string;
  readonly readyGateAt?: number;
  /** The gated `isReady` gives up (rejects) when its signal is aborted, as a fetch would. */
  readonly readyAbortable?: boolean;
  /** The gate holds only an `isReady` asked after this step's call already ran once. */
  readonly readyGateAfterCall?: boolean;
  /** Step `sleepAt` takes `sleepMs` in `call`; it honours its abort signal only with `abortable`. */
  readonly sleepMs?: number;
  readonly sleepAt?: number;
  readonly abortable?: boolean;
  readonly result?: JsonValue;
  /** The last step's return value cannot be stored: it throws, is a BigInt, a Date, or too big. */
  readonly badResult?: 'throw' | 'bigint' | 'date' | 'huge';
  /** Size of the `huge` return value, bytes. */
  readonly hugeBytes?: number;
}

export class ScriptStep implements Repo<Recorder> {
  static readonly type = 'script';
  readonly type = ScriptStep.type;
  readonly #s: ScriptState;

  constructor(state: ScriptState) {
    this.#s = state;
  }

  get retry(): RetryPolicy | undefined {
    return this.#s.retry;
  }

  get timeoutMs(): number | undefined {
    return this.#s.timeoutMs;
  }

  isReady(id: FateId, env: Recorder, context?: StepContext): Promise<number> | number {
    const calledBefore = (env.calls.get(`${id}:${this.#s.n}`) ?? 0) > 0;
    if (
      this.#s.readyGate &&
      this.#s.readyGateAt === this.#s.n &&
      (!this.#s.readyGateAfterCall || calledBefore)
    ) {
      const g = env.gate(this.#s.readyGate);
      if (!g.entered) {
        g.entered = true;
        // a probe that ignores its signal: only the engine can keep the call from starting
        const opened = this.#s.readyAbortable ? abortable(g.opened, context?.signal) : g.opened;
        return opened.then(() => this.#ready(id, env));
      }
    }
    return this.#ready(id, env);
  }

  #ready(id: FateId, env: Recorder): number {
    if (this.#s.failReadyAt === this.#s.n) throw new Error(`not ready at ${this.#s.n}`);
    if (this.#s.deferMs && this.#s.n === (this.#s.deferAt ?? 1) && !env.deferred.has(id)) {
      env.deferred.add(id);
      return this.#s.deferMs;
    }
    return 0;
  }

  async call(id: FateId, env: Recorder, context?: StepContext): Promise<ScriptStep | undefined> {
    const { n, total } = this.#s;
    const key = `${id}:${n}`;
    env.calls.set(key, (env.calls.get(key) ?? 0) + 1);
    // a call begun with its signal already aborted began after its run was stopped
    env.record(id, context?.signal.aborted ? `call:${n} (aborted at start)` : `call:${n}`);
    env.effects.set(key, n * 10); // idempotent: the same value however often it runs
    const leave = env.enter(id);
    try {
      if (this.#s.gate && this.#s.gateAt === n) {
        const g = env.gate(this.#s.gate);
        g.entered = true;
        // a test that failed before opening its gate must not hang the engine's shutdown
        await abortable(g.opened, context?.signal);
      }
      if (this.#s.sleepMs && this.#s.sleepAt === n) {
        const signal = this.#s.abortable ? context?.signal : undefined;
        await sleep(this.#s.sleepMs, undefined, signal ? { signal } : {});
      }
    } finally {
      leave();
    }
    if (this.#s.failCallAt === n && (env.calls.get(key) ?? 0) <= (this.#s.failTimes ?? Infinity)) {
      const cause =
        this.#s.failCause === undefined ? {} : { cause: new TypeError(this.#s.failCause) };
      throw new Error(`boom at ${n}`, cause);
    }
    return n < total ? new ScriptStep({ ...this.#s, n: n + 1 }) : undefined;
  }

  undo(id: FateId, env: Recorder): void {
    env.record(id, `undo:${this.#s.n}`);
    if (this.#s.throwUndoAt === this.#s.n) throw new Error(`undo failed at ${this.#s.n}`);
  }

  state(): JsonValue {
    return this.#s as unknown as JsonValue;
  }

  returnValue(): JsonValue | undefined {
    switch (this.#s.badResult) {
      case 'throw':
        throw new Error('no result to give');
      case 'bigint':
        return 10n as unknown as JsonValue;
      case 'date':
        return new Date(0) as unknown as JsonValue;
      case 'huge':
        return 'x'.repeat(this.#s.hugeBytes ?? 0);
      default:
        return this.#s.result;
    }
  }
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export const scriptStepType: StepType<Recorder> = {
  type: ScriptStep.type,
  fromState: (state) => {
    const s = state as unknown as ScriptState;
    if (typeof s?.n !== 'number' || typeof s.total !== 'number')
      throw new Error('bad script state');
    return new ScriptStep(s);
  },
};

/** A transaction of `total` script steps. */
export function script(total: number, extra: Omit<ScriptState, 'n' | 'total'> = {}): ScriptStep {
  return new ScriptStep({ n: 1, total, ...extra });
}

/** The stored form of `script(total, extra)`, for seeding through a bare store. */
export function scriptData(total: number, extra: Omit<ScriptState, 'n' | 'total'> = {}): StepData {
  return { type: ScriptStep.type, state: script(total, extra).state() };
}
