import { randomUUID } from 'node:crypto';
import type { StoreBackend, StoredRecord } from '../contract/backend.js';
import type { ClaimedRecord } from '../contract/backend-claims.js';
import { type ClaimOptions, type ClaimResult, MAX_CLAIM } from '../contract/claim-types.js';
import type { FateStore } from '../contract/fate-store.js';
import type { IdRange, Reservation } from '../contract/types.js';
import { FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import type { FateId } from '../ids.js';
import type { BackendCaller } from './backend-caller.js';
import type { ReservationLedger } from './reservation-ledger.js';
import { checkRange } from './scan-page.js';

/** What the claim needs from the guard. */
export interface ClaimHost {
  readonly lockId: string;
  /** The backend itself, only to see which operations it has; every call goes through `caller`. */
  readonly backend: StoreBackend;
  readonly caller: BackendCaller;
  readonly ledger: ReservationLedger;
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
  const limit = checkClaim(range, options);
  const { backend, ledger } = host;
  if (typeof backend.claimMany !== 'function') return claimOneByOne(host, range, limit);
  const reservations = claimSlots(host, limit);
  let got: ClaimedRecord[];
  try {
    got = await host.caller.retried('claimMany', (b) =>
      (b.claimMany as ClaimMany).call(b, range, reservations),
    );
  } catch (err) {
    if (isFateError(err, FateErrorCode.STORE_UNAVAILABLE)) ledger.uncertainClaims(reservations);
    else for (const r of reservations) ledger.forget(r.uuid);
    throw err;
  }
  return takeClaimed(host, reservations, got);
}

/** Checks a claim's range and limit (FATE_INVALID_ARGUMENT); the limit. */
export function checkClaim(range: IdRange | undefined, options: ClaimOptions): number {
  checkRange(range);
  const limit = options?.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CLAIM) {
    throw invalidArgument(`limit must be an integer in 1..${MAX_CLAIM}`);
  }
  return limit;
}

/** One fresh reservation per slot of a claim, each known to the ledger as being taken. */
export function claimSlots(host: Pick<ClaimHost, 'lockId' | 'ledger'>, limit: number) {
  const reservations: Reservation[] = Array.from({ length: limit }, () => ({
    lockId: host.lockId,
    uuid: randomUUID(),
  }));
  for (const r of reservations) host.ledger.pending(r.uuid);
  return reservations;
}

/**
 * Turns what a batched claim answered into handles: only records held under one of
 * `reservations` count; the slots nothing was claimed with are forgotten.
 */
export async function takeClaimed(
  host: ClaimHost,
  reservations: readonly Reservation[],
  got: readonly ClaimedRecord[],
): Promise<ClaimResult> {
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
  for (const uuid of ours.keys()) host.ledger.forget(uuid); // slots nothing was claimed with
  return result;
}

/** The fallback: a scan of one page, then one reservation per id. */
export async function claimOneByOne(
  host: ClaimHost,
  range: IdRange | undefined,
  limit: number,
): Promise<ClaimResult> {
  const scan = await host.caller.retried('scanRunnable', (b) => b.scanRunnable(range, limit));
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
