import type { FateId, StoreBackend, StoredRecord } from '@fate/core';
import type { History } from './history.js';

/** What `SimDeletes` needs of its backend client's options (`SimBackendOptions`). */
export interface SimDeletesOptions {
  readonly client: string;
  readonly history: History;
  /**
   * True when the inner backend applies each call synchronously when it is made (the memory
   * backend): a record is then read and changed in one step, so what a delete removed is
   * known exactly. Real backends: deletes are recorded without the prior status check.
   */
  readonly atomic: boolean;
  /**
   * Asked about every delete the store applies (`ageOff`: by `deleteAgedOff`): a violation's
   * text, or undefined.
   */
  judgeDelete(
    id: string,
    before: StoredRecord | undefined,
    client: string,
    ageOff: boolean,
  ): string | undefined;
}

/**
 * Records in the history what one client's deletes removed, and judges each. On an atomic
 * backend (memory: every call applies when it is made) the reads that bracket a delete are
 * made in the same instant as the delete, so what it removed, and in what status, is known
 * exactly; on a real backend a fenced delete is recorded with status `?`, unjudged, and a
 * batch (`deleteAgedOff`, which answers only a count) is not recorded.
 */
export class SimDeletes {
  readonly #inner: StoreBackend;
  readonly #o: SimDeletesOptions;

  constructor(inner: StoreBackend, options: SimDeletesOptions) {
    this.#inner = inner;
    this.#o = options;
  }

  /** A fenced delete of `id` by `apply` (`write` or `finishAndClaim`); `applied` reads its answer. */
  async one<T>(id: string, apply: () => Promise<T>, applied: (answer: T) => boolean): Promise<T> {
    // read and delete are both started before either is awaited: `before` is what it removed
    const reading = this.#o.atomic ? this.#inner.read(id as FateId) : undefined;
    const deleting = apply();
    const [before, answer] = await Promise.all([reading, deleting]);
    if (applied(answer)) this.#deleted(id, before, false);
    return answer;
  }

  /**
   * Age-off's batched delete (`deleteAgedOff`), judged by the same rule as any delete and with
   * no excuse (an admin delete in flight, auto-clean): the store must delete only what is
   * still finished. Its count must be what it removed.
   */
  async batch(ids: readonly string[], apply: () => Promise<number>): Promise<number> {
    if (!this.#o.atomic) return apply();
    const read = (id: string) => this.#inner.read(id as FateId);
    const reading = ids.map(read);
    const deleting = apply();
    const after = ids.map(read);
    const [before, count, left] = await Promise.all([
      Promise.all(reading),
      deleting,
      Promise.all(after),
    ]);
    let removed = 0;
    ids.forEach((id, i) => {
      if (!before[i] || left[i]) return;
      removed++;
      this.#deleted(id, before[i], true);
    });
    if (count !== removed) {
      this.#o.history.violation(
        `${this.#o.client}'s deleteAgedOff answered ${count} deleted but removed ${removed}`,
      );
    }
    return count;
  }

  #deleted(id: string, before: StoredRecord | undefined, ageOff: boolean): void {
    const h = this.#o.history;
    const { client } = this.#o;
    h.add({ t: h.now(), e: 'deleted', id, status: before?.status ?? '?', client });
    if (!this.#o.atomic) return;
    const wrong = this.#o.judgeDelete(id, before, client, ageOff);
    if (wrong) h.violation(wrong);
  }
}
