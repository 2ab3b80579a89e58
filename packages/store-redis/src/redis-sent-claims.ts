import type { Reservation } from '@fate/core';

/** How many claims are remembered. */
const REMEMBERED = 1_000;

/**
 * The first uuids of the last 1,000 claims sent (each call has fresh ones): a call with one
 * again is the guard's repeat after a lost reply, here or above this backend.
 */
export class SentClaims {
  readonly #sent = new Set<string>();

  /** True when a claim with these reservations was sent before; remembers this one. */
  repeated(reservations: readonly Reservation[]): boolean {
    const first = reservations[0]?.uuid ?? '';
    const repeat = this.#sent.has(first);
    this.#sent.add(first);
    if (this.#sent.size > REMEMBERED) this.#sent.delete(this.#sent.values().next().value as string);
    return repeat;
  }
}
