import { inRange, type Reservation, type ReservationFilter, sameReservation } from '@fate/core';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import {
  bucketsFor,
  MARKER_BUCKETS,
  markerBucketOf,
  type ReservedName,
  type ZkLayout,
} from './zk-layout.js';
import { repairMarker, touchMarker } from './zk-markers.js';
import type { ReadRecord } from './zk-record-codec.js';
import type { ZkRecords } from './zk-records.js';

/**
 * The reservation index: an empty marker `reserved/<hex>/<id>+<lockId>+<uuid>` per
 * reservation, bucketed by the id's first hex digit like the runnable markers, so
 * `reservations()` lists only the buckets of a range (every engine lists its own share
 * every heartbeat) and filters by lock id on names alone, then reads only the marked
 * records, never every record in the store. A reserver touches its marker before it
 * writes the reservation (the rules of `zk-markers.ts`); whoever ends the reservation
 * (release, clear, delete) removes it after the record write. The uuid in the name makes
 * that removal unconditional and race-free: no later reservation shares it.
 */
export class ZkReservationIndex {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;
  readonly #records: ZkRecords;
  #repairing: Promise<unknown> | undefined;

  constructor(client: ZkClient, layout: ZkLayout, records: ZkRecords) {
    this.#client = client;
    this.#layout = layout;
    this.#records = records;
  }

  /** Touches the marker before `reservation` is written into `id`. */
  touch(id: string, reservation: Reservation): Promise<void> {
    return touchMarker(
      this.#client,
      this.#layout.reservedMarker(id, reservation),
      this.#layout.reservedBucket(markerBucketOf(id)),
    );
  }

  /**
   * Creates the marker of a fresh reservation with one request, to be sent right before
   * the record write it must precede; anything but 'ok' calls for a full `touch`.
   */
  create(id: string, reservation: Reservation): Promise<'ok' | 'exists' | 'nonode'> {
    return this.#client.create(this.#layout.reservedMarker(id, reservation), '', 0);
  }

  /** Removes the marker of a reservation that ended (or was never written). */
  async remove(id: string, reservation: Reservation): Promise<void> {
    await this.#client.delete(this.#layout.reservedMarker(id, reservation), -1);
  }

  /** The reservations stored in the marked records of the filter; stale markers are repaired. */
  async list(
    filter: ReservationFilter = {},
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    const { range, lockId } = filter;
    const buckets = bucketsFor(range, MARKER_BUCKETS);
    const lists = await pipelined(buckets, PIPELINE_DEPTH, (b) =>
      this.#client.children(this.#layout.reservedBucket(b)),
    );
    const markers: ReservedName[] = [];
    for (const name of lists.flatMap((names) => names ?? [])) {
      const m = this.#layout.reservedOf(name);
      if (m && inRange(m.id, range) && (lockId === undefined || m.lockId === lockId))
        markers.push(m);
    }
    const ids = [...new Set(markers.map((m) => m.id))].sort();
    const judgedAt = performance.now();
    const read = await pipelined(ids, PIPELINE_DEPTH, (id) => this.#records.read(id));
    const records = new Map(ids.map((id, i) => [id, read[i]]));
    const out: Array<{ id: string; reservation: Reservation }> = [];
    for (const id of ids) {
      const read = records.get(id);
      const reservation = read?.record.reservation;
      if (read && reservation && (lockId === undefined || reservation.lockId === lockId)) {
        out.push({ id, reservation });
        // A cleaner clears some of these next: with the copy cached, in one round trip.
        this.#records.saw(id, read);
      }
    }
    this.#repair(
      markers.filter((m) => !sameReservation(records.get(m.id)?.record.reservation ?? null, m)),
      records,
      judgedAt,
    );
    return out;
  }

  /**
   * Most stale markers are ones whose holder is removing them right now; the rest (a
   * crash's leftovers) are repaired off the caller's path, one batch at a time. A reserver
   * needs its record to exist, so a marker of an absent record is stale for sure.
   */
  #repair(
    stale: ReservedName[],
    records: Map<string, ReadRecord | undefined>,
    judgedAt: number,
  ): void {
    if (stale.length === 0 || this.#repairing) return;
    this.#repairing = pipelined(stale, PIPELINE_DEPTH, (m) =>
      repairMarker(
        this.#client,
        this.#layout.reservedMarker(m.id, m),
        records.get(m.id)?.stat,
        true,
        judgedAt,
      ),
    )
      .catch(() => undefined)
      .finally(() => {
        this.#repairing = undefined;
      });
  }
}
