/** How a kind of call runs: alone, or many of them in one statement. */
export interface TickBatchRunner<I, O> {
  /** The item's row: one statement can change a row once, so a row twice waits a tick. */
  key(item: I): string;
  one(item: I): Promise<O>;
  /** One statement for all of `items` (two or more, distinct keys): their answers, in order. */
  many(items: readonly I[]): Promise<O[]>;
  /**
   * Whether `many`'s failure says nothing of the batch applied, so that each call may be
   * sent again alone to get its own answer (PostgreSQL: the server rolled the statement
   * back). Absent: every failure of `many` fails each call of the batch with it.
   */
  sendAgainAlone?(error: unknown): boolean;
}

interface Pending<I, O> {
  readonly item: I;
  resolve(answer: O): void;
  reject(error: unknown): void;
}

/**
 * Batching for a backend (issue 23): the calls of one kind that one process makes within
 * one turn of the event loop (the finishing writes of many workers, say) go to the store
 * as one request (PostgreSQL: one statement; Redis: one script call): one round trip and
 * one commit for the lot, where each call alone pays both. The request keeps each call's
 * own fence and answer.
 *
 * A lost reply leaves each caller to resolve its own call by asking again, as alone. A
 * failure of the request fails every call of the batch with it, unless the runner says it
 * applied nothing (`sendAgainAlone`): then each call is sent again alone and gets its own
 * answer, so a call the store refuses fails alone. A batch of one is sent alone. Calls on
 * one key (one row) wait for the next batch; a batch goes in key order, so that two
 * processes' batches mostly take their rows' locks in one order.
 */
export class TickBatch<I, O> {
  readonly #runner: TickBatchRunner<I, O>;
  #pending: Pending<I, O>[] = [];
  readonly #running = new Set<Promise<void>>();

  constructor(runner: TickBatchRunner<I, O>) {
    this.#runner = runner;
  }

  /** Resolves with the call's answer once its batch ran. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.#pending.push({ item, resolve, reject }) === 1) setImmediate(() => this.#flush());
    });
  }

  /** Resolves once no batch is waiting or running (before the pool is ended). */
  async drain(): Promise<void> {
    while (this.#pending.length > 0 || this.#running.size > 0) {
      if (this.#pending.length > 0) await new Promise((r) => setImmediate(r));
      else await Promise.allSettled([...this.#running]);
    }
  }

  #flush(): void {
    const batch: Pending<I, O>[] = [];
    const later: Pending<I, O>[] = [];
    const keys = new Set<string>();
    for (const p of this.#pending) {
      const key = this.#runner.key(p.item);
      if (keys.has(key)) later.push(p);
      else {
        keys.add(key);
        batch.push(p);
      }
    }
    // in key order: two processes' requests then mostly lock their rows in one order
    batch.sort((a, b) => compare(this.#runner.key(a.item), this.#runner.key(b.item)));
    this.#pending = later;
    if (later.length > 0) setImmediate(() => this.#flush());
    const running = batch.length === 1 ? this.#alone(batch[0] as Pending<I, O>) : this.#many(batch);
    this.#running.add(running);
    void running.finally(() => this.#running.delete(running));
  }

  #alone(p: Pending<I, O>): Promise<void> {
    return this.#runner.one(p.item).then(p.resolve, p.reject);
  }

  async #many(batch: readonly Pending<I, O>[]): Promise<void> {
    let answers: O[];
    try {
      answers = await this.#runner.many(batch.map((p) => p.item));
    } catch (error) {
      if (this.#runner.sendAgainAlone?.(error)) {
        await Promise.all(batch.map((p) => this.#alone(p)));
      } else for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      p.resolve(answers[i] as O);
    });
  }
}

/** Byte order of a batch's keys, which are distinct (a key twice waits for the next batch). */
const compare = (a: string, b: string) => (a < b ? -1 : 1);
