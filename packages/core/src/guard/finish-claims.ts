import type { RecordWrite, StoreBackend } from '../contract/backend.js';
import type { ClaimedRecord } from '../contract/backend-claims.js';
import type { ClaimResult } from '../contract/claim-types.js';
import type { IdRange, Reservation } from '../contract/types.js';
import { type ClaimHost, claimRunnable, claimSlots, takeClaimed } from './claims.js';

/** How the finishing write ended, as the handle judged it (after any reads of a repeat). */
export type WriteVerdict = 'written' | 'refused' | 'unknown';

type FinishAndClaim = NonNullable<StoreBackend['finishAndClaim']>;

const nothing = (): ClaimResult => ({ claimed: [], refused: [] });

/**
 * A claim riding on the write that ends a handle's reservation (`FatesStore.claimNext`):
 * one `finishAndClaim` call per attempt where the backend has it (the reservations are
 * made once, so a repeat after a lost reply answers what the first took), else the plain
 * write and, once it applied, `claimRunnable`. `result` always resolves: with nothing when
 * the write was fenced off, its outcome stayed unknown (the ledger then clears whatever
 * the store keeps under the claim's uuids), or the handle ended without such a write.
 */
export class FinishClaim {
  readonly result: Promise<ClaimResult>;
  readonly #host: ClaimHost;
  readonly #range: IdRange | undefined;
  readonly #limit: number;
  #resolve: (result: ClaimResult) => void = () => undefined;
  #reservations: Reservation[] | undefined;
  #got: readonly ClaimedRecord[] = [];
  #settled = false;

  constructor(host: ClaimHost, range: IdRange | undefined, limit: number) {
    this.#host = host;
    this.#range = range;
    this.#limit = limit;
    this.result = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** One attempt of the finishing write (the caller repeats it while the reply is lost). */
  async send(id: string, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    const { backend } = this.#host;
    if (typeof backend.finishAndClaim !== 'function') {
      return this.#host.caller.call('write', (b) => b.write(id as never, reservation, change));
    }
    this.#reservations ??= claimSlots(this.#host, this.#limit);
    const rs = this.#reservations;
    const answer = await this.#host.caller.call('write', (b) =>
      (b.finishAndClaim as FinishAndClaim).call(b, id, reservation, change, this.#range, rs),
    );
    this.#got = answer.claimed;
    return answer.written;
  }

  /** The write's verdict: the claim's handles are made, or what it took is let go. */
  settle(verdict: WriteVerdict): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#settle(verdict).then(this.#resolve, () => this.#resolve(nothing()));
  }

  /** The handle ended without a write that carried the claim. */
  cancel(): void {
    this.settle('refused');
  }

  async #settle(verdict: WriteVerdict): Promise<ClaimResult> {
    const rs = this.#reservations;
    const { ledger } = this.#host;
    if (!rs) {
      if (verdict !== 'written') return nothing();
      return claimRunnable(this.#host, this.#range, { limit: this.#limit }).catch(nothing);
    }
    if (verdict === 'unknown') {
      ledger.uncertainClaims(rs);
      return nothing();
    }
    if (verdict === 'written') return takeClaimed(this.#host, rs, this.#got);
    // Fenced off: a backend claims nothing then; whatever came back anyway is let go.
    const ours = new Map(rs.map((r) => [r.uuid, r]));
    await Promise.all(
      this.#got.map(async ({ id, record }) => {
        const r = record.reservation && ours.get(record.reservation.uuid);
        if (!r) return;
        await this.#host.caller
          .retried('clearReservation', (b) => b.clearReservation(id as never, r))
          .catch(() => ledger.uncertain(id as never, r));
      }),
    );
    for (const r of rs) ledger.forget(r.uuid);
    return nothing();
  }
}
