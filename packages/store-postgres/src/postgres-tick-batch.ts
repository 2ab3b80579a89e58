/** How a kind of call runs: alone, or many of them in one statement. */
export interface TickBatchRunner<I, O> {
  /** The item's row: one statement can change a row once, so a row twice waits a tick. */
  key(item: I): string;
  one(item: I): Promise<O>;
  /** One statement for all of `items` (two or more, distinct keys): their answers, in order. */
  many(items: readonly I[]): Promise<O[]>;
}

interface Pending<I, O> {
  readonly item: I;
  resolve(answer: O): void;
  reject(error: unknown): void;
}

/**
 * Batching on PostgreSQL (issue 23): the calls of one kind that one process makes within
 * one turn of the event loop (the finishing writes of many workers, say) go to the server
 * as one statement: one round trip, one plan and one commit for the lot, where each call
 * alone pays all three. The statement keeps each call's own fence and answer.
 *
 * One statement is atomic, so a lost reply leaves the whole batch applied or none of it,
 * and each caller resolves that on its own as before (the guard asks again). An error the
 * server reports for the statement (it rolled back: nothing applied) might be one call's
 * own, so each call of such a batch is sent again alone and gets its own answer; any other
 * failure (the connection lost, a timeout: the outcome unknown) fails every call of the
 * batch with it. A batch of one is sent alone, as before.
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
    // rows locked in one order by every process's statements: no two of them deadlock
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
      if (rolledBack(error)) await Promise.all(batch.map((p) => this.#alone(p)));
      else for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      p.resolve(answers[i] as O);
    });
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The server answered with an error of the statement itself, so it rolled back (nothing
 * applied): a SQLSTATE outside the classes of a lost connection (08), a server going away
 * or a cancelled statement (57) and lacking resources (53).
 */
function rolledBack(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57|53)/.test(code);
}
