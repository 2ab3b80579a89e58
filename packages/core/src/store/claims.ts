import { randomUUID } from 'node:crypto';
import { FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import type { FateId } from '../ids.js';
import type { StoreBackend, StoredRecord } from './backend.js';
import type { ClaimedRecord } from './backend-claims.js';
import type { FateStore } from './fate-store.js';
import type { ReservationLedger } from './reservation-ledger.js';
import { checkRange } from './scan-page.js';
import type { IdRange, Reservation } from './types.js';

/** Most transactions one `claimRunnable` takes. */
export const MAX_CLAIM = 1_000;

/** `FatesStore.claimRunnable`'s options. */
export interface ClaimOptions {
  /** Most transactions to claim (1..1,000). */
  readonly limit: number;
}

/** What `FatesStore.claimRunnable` took. */
export interface ClaimResult {
  /** Reserved to run, lowest ids first: one handle each, as `tryReserve(id, {start})`. */
  readonly claimed: FateStore[];
  /**
   * Claimed but let go at once, unchanged and unreserved: records whose stored status does
   * not decode (`FATE_CORRUPT_DATA`), each with its error.
   */
  readonly refused: Array<{ readonly id: FateId; readonly error: Error }>;
}

/** What the claim needs from the guard. */
export interface ClaimHost {
  readonly lockId: string;
  readonly backend: StoreBackend;
  readonly ledger: ReservationLedger;
  /** Asked again with the same arguments while the reply is lost. */
  retried<T>(what: string, fn: (b: StoreBackend) => Promise<T>): Promise<T>;
  /** The guard's `tryReserve(id, { start: true })`. */
  tryReserve(id: FateId): Promise<FateStore | undefined>;
  /** A handle for a record this client reserved; throws (and clears it) if it cannot decode. */
  handle(id: FateId, reservation: Reservation, record: StoredRecord): Promise<FateStore>;
}

type ClaimMany = NonNullable<StoreBackend['claimMany']>;

/**
 * Claims up to `limit` runnable transactions of `range`: one `claimMany` call where the
 * backend has it, else today's scan and one `tryReserve` per id. With `claimMany` the
 * reservations are made here, one fresh uuid per slot, so a repeat after a lost reply
 * answers what the first call took; when the outcome stays unknown, the ledger clears
 * whatever the store keeps under those uuids.
 */
export async function claimRunnable(
  host: ClaimHost,
  range: IdRange | undefined,
  options: ClaimOptions,
): Promise<ClaimResult> {
  checkRange(range);
  const limit = options?.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CLAIM) {
    throw invalidArgument(`limit must be an integer in 1..${MAX_CLAIM}`);
  }
  const { backend, ledger } = host;
  if (typeof backend.claimMany !== 'function') return claimOneByOne(host, range, limit);
  const reservations: Reservation[] = Array.from({ length: limit }, () => ({
    lockId: host.lockId,
    uuid: randomUUID(),
  }));
  for (const r of reservations) ledger.pending(r.uuid);
  let got: ClaimedRecord[];
  try {
    got = await host.retried('claimMany', (b) =>
      (b.claimMany as ClaimMany).call(b, range, reservations),
    );
  } catch (err) {
    if (isFateError(err, FateErrorCode.STORE_UNAVAILABLE)) ledger.uncertainClaims(reservations);
    else for (const r of reservations) ledger.forget(r.uuid);
    throw err;
  }
  const ours = new Map(reservations.map((r) => [r.uuid, r]));
  const result: ClaimResult = { claimed: [], refused: [] };
  for (const { id, record } of got) {
    const reservation = record.reservation ? ours.get(record.reservation.uuid) : undefined;
    if (!reservation || record.reservation?.lockId !== host.lockId) continue; // not ours
    ours.delete(reservation.uuid);
    try {
      result.claimed.push(await host.handle(id as FateId, reservation, record));
    } catch (error) {
      result.refused.push({ id: id as FateId, error: error as Error });
    }
  }
  for (const uuid of ours.keys()) ledger.forget(uuid); // slots nothing was claimed with
  return result;
}

/** The fallback: a scan of one page, then one reservation per id. */
async function claimOneByOne(
  host: ClaimHost,
  range: IdRange | undefined,
  limit: number,
): Promise<ClaimResult> {
  const scan = await host.retried('scanRunnable', (b) => b.scanRunnable(range, limit));
  const result: ClaimResult = { claimed: [], refused: [] };
  const taken = await Promise.allSettled(scan.ids.map((id) => host.tryReserve(id as FateId)));
  let failure: unknown;
  taken.forEach((t, i) => {
    if (t.status === 'fulfilled') {
      if (t.value) result.claimed.push(t.value);
    } else if (isFateError(t.reason, FateErrorCode.CORRUPT_DATA)) {
      result.refused.push({ id: scan.ids[i] as FateId, error: t.reason });
    } else {
      failure ??= t.reason; // an unknown outcome is cleared by the ledger
    }
  });
  // nothing claimed: the store's failure is the answer
  if (failure !== undefined && result.claimed.length === 0) throw failure;
  return result;
}
