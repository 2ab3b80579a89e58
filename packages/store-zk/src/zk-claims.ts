import type {
  BackendScan,
  ClaimedRecord,
  FateId,
  IdRange,
  Reservation,
  StoredRecord,
} from '@fate/core';

/** Claims remembered (a repeat after a lost reply, here or above, finds them here). */
const REMEMBERED = 1_000;

/** What a claim needs of the backend: a scan, and `tryReserve` with start. */
export interface ZkClaimOps {
  scan(range: IdRange | undefined, limit: number): Promise<BackendScan>;
  tryReserve(
    id: FateId,
    reservation: Reservation,
    start: boolean,
  ): Promise<StoredRecord | 'absent' | 'held'>;
}

interface Assignment {
  readonly id: FateId;
  readonly op: string;
  readonly reservation: Reservation;
}

/**
 * `claimMany` on ZooKeeper, which has no multi-op: one scan of the range, then one
 * reservation per id found, all sent back to back on the one session (pipelined; each a
 * compare-and-set on the record's version, one round trip for the record the scan just
 * read). The client picks the ids, so it remembers which reservation it sent for which id
 * (the last 1,000 calls; every call has fresh uuids): a repeat sends exactly those reservations
 * again, and `tryReserve` answers a record already held by the same reservation as it is
 * stored (a started one as IN_PROGRESS), so nothing the first call took is lost.
 */
export class ZkClaims {
  readonly #ops: ZkClaimOps;
  /** By the first uuid of a call: the reservations it sent, per id. */
  readonly #sent = new Map<string, readonly Assignment[]>();

  constructor(ops: ZkClaimOps) {
    this.#ops = ops;
  }

  async claim(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]> {
    const key = reservations[0]?.uuid;
    if (key === undefined) return [];
    let sent = this.#sent.get(key);
    if (!sent) {
      const scan = await this.#ops.scan(range, reservations.length);
      sent = scan.ids.slice(0, reservations.length).map((id, i) => ({
        id: id as FateId,
        op: scan.ops[i] ?? '',
        reservation: reservations[i] as Reservation,
      }));
      this.#remember(key, sent);
    }
    const answers = await Promise.allSettled(
      sent.map((a) => this.#ops.tryReserve(a.id, a.reservation, true)),
    );
    const failed = answers.find((a) => a.status === 'rejected');
    if (failed) throw failed.reason; // remembered: the repeat asks for the same again
    const out: ClaimedRecord[] = [];
    answers.forEach((a, i) => {
      const { id, op } = sent[i] as Assignment;
      if (a.status === 'fulfilled' && typeof a.value === 'object')
        out.push({ id, op, record: a.value });
    });
    return out;
  }

  #remember(key: string, sent: readonly Assignment[]): void {
    this.#sent.set(key, sent);
    if (this.#sent.size > REMEMBERED) {
      const oldest = this.#sent.keys().next().value;
      if (oldest !== undefined) this.#sent.delete(oldest);
    }
  }
}
