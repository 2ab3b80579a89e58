import type { Reservation } from '@fate/core';
import type { ZkClient } from './zk-client.js';
import type { ZkLayout } from './zk-layout.js';
import { repairMarker, touchMarker } from './zk-markers.js';
import { PIPELINE_DEPTH, pipelined, type ZkRecords } from './zk-records.js';

/**
 * The reservation index: an empty marker `reserved/<id>+<uuid>` per reservation, so
 * `reservations()` (the dead-reservation cleaner's query) lists one znode and reads the
 * reserved records only, instead of every record in the store. A reserver touches its
 * marker before it writes the reservation (the rules of `zk-markers.ts`); whoever ends the
 * reservation (release, clear, delete) removes it after the record write. The uuid in the
 * name makes that removal unconditional and race-free: no later reservation shares it.
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
      this.#layout.reservedMarker(id, reservation.uuid),
      this.#layout.reserved,
    );
  }

  /**
   * Creates the marker of a fresh reservation with one request, to be sent right before
   * the record write it must precede; anything but 'ok' calls for a full `touch`.
   */
  create(id: string, reservation: Reservation): Promise<'ok' | 'exists' | 'nonode'> {
    return this.#client.create(this.#layout.reservedMarker(id, reservation.uuid), '', 0);
  }

  /** Removes the marker of a reservation that ended (or was never written). */
  async remove(id: string, reservation: Reservation): Promise<void> {
    await this.#client.delete(this.#layout.reservedMarker(id, reservation.uuid), -1);
  }

  /** The reservations stored in the marked records; stale markers are repaired. */
  async list(): Promise<Array<{ id: string; reservation: Reservation }>> {
    const markers = ((await this.#client.children(this.#layout.reserved)) ?? []).flatMap((name) => {
      const parsed = this.#layout.reservedOf(name);
      return parsed ? [parsed] : [];
    });
    const ids = [...new Set(markers.map((m) => m.id))].sort();
    const read = await pipelined(ids, PIPELINE_DEPTH, (id) => this.#records.read(id));
    const records = new Map(ids.map((id, i) => [id, read[i]]));
    const out: Array<{ id: string; reservation: Reservation }> = [];
    for (const id of ids) {
      const reservation = records.get(id)?.record.reservation;
      if (reservation) out.push({ id, reservation });
    }
    const stale = markers.filter((m) => records.get(m.id)?.record.reservation?.uuid !== m.uuid);
    if (stale.length > 0 && !this.#repairing) {
      // Most are markers whose holder is removing them right now; the rest (a crash's
      // leftovers) are repaired off the caller's path, one batch at a time. A reserver
      // needs its record to exist, so a marker of an absent record is stale for sure.
      this.#repairing = pipelined(stale, PIPELINE_DEPTH, (m) =>
        repairMarker(
          this.#client,
          this.#layout.reservedMarker(m.id, m.uuid),
          records.get(m.id)?.stat,
          true,
        ),
      )
        .catch(() => undefined)
        .finally(() => {
          this.#repairing = undefined;
        });
    }
    return out;
  }
}
