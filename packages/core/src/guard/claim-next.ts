import type { ClaimOptions, ClaimResult } from '../contract/claim-types.js';
import type { FateStore } from '../contract/fate-store.js';
import type { IdRange } from '../contract/types.js';
import { invalidArgument } from '../errors.js';
import { type ClaimHost, checkClaim } from './claims.js';
import { FinishClaim } from './finish-claims.js';
import { ReservedFate } from './reserved-fate.js';

/**
 * `FatesStore.claimNext`: arms a handle this client holds, so the commit that ends its
 * reservation carries a claim of up to `limit` runnable records of `range`.
 */
export async function claimNext(
  host: ClaimHost,
  fate: FateStore,
  range: IdRange | undefined,
  options: ClaimOptions,
): Promise<ClaimResult> {
  const limit = checkClaim(range, options);
  if (!(fate instanceof ReservedFate) || !host.ledger.holds(fate.reservation.uuid)) {
    throw invalidArgument('claimNext needs a handle this store client holds');
  }
  const claim = new FinishClaim(host, range, limit);
  fate.carry(claim);
  return claim.result;
}
