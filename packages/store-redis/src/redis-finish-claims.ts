import type { FinishClaimed, IdRange, RecordWrite, Reservation, ServerClock } from '@fate/core';
import {
  CLAIM_FUNCTION,
  type ClaimReply,
  claimedRecords,
  claimMany,
  MAX_DUE_MOVED,
} from './redis-claims.js';
import { idBounds, type RedisKeys, recordScriptKeys } from './redis-keys.js';
import { PRELUDE, RECORD_SCRIPTS, WRITE_FUNCTION } from './redis-record-scripts.js';
import { type RedisClient, RedisScript } from './redis-script.js';

/** How many ARGV the write takes (`writeArgs`); the claim's follow. */
const WRITE_ARGS = 14;

/**
 * KEYS: the transaction hash, then its shard's runnable set. ARGV: the write's 14, then the
 * claim's (lex min, lex max, key prefix, lock id, due moved, mode, uuids...). The write,
 * then the claim in the same shard: a fresh claim only when the write applied, else only
 * what the uuids hold (a repeat after a lost reply); a write that just ended its
 * reservation follows no attempt that applied, so the held lookup is skipped. Returns {written, claimed records}.
 */
const FINISH_CLAIM = `${PRELUDE}${WRITE_FUNCTION}${CLAIM_FUNCTION}
local W, C = {}, {}
for i = 1, ${WRITE_ARGS} do W[i] = ARGV[i] end
for i = ${WRITE_ARGS + 1}, #ARGV do C[#C + 1] = ARGV[i] end
local written = write_record(W)
if written == 0 then C[6] = 'held'
elseif W[4] == 'delete' or W[10] == '1' then C[6] = 'fresh' end
return {written, claim_records(C)}
`;

export const FINISH_CLAIM_SCRIPT = new RedisScript('finishClaim', FINISH_CLAIM);

/** The write script's ARGV for `change` of `id` under `reservation`. */
export function writeArgs(id: string, reservation: Reservation, change: RecordWrite): string[] {
  return [
    id,
    reservation.lockId,
    reservation.uuid,
    change.delete ? 'delete' : 'update',
    change.status ?? '',
    change.stack !== undefined ? '1' : '0',
    change.stack ?? '',
    change.info !== undefined ? '1' : '0',
    change.info ?? '',
    change.release ? '1' : '0',
    String(change.release?.deferMs ?? 0),
    change.finished === undefined ? '0' : change.finished === null ? '1' : '2',
    change.finished?.at === undefined ? '' : String(Math.round(change.finished.at)),
    change.finished?.retainMs === undefined ? '' : String(change.finished.retainMs),
  ];
}

/**
 * `finishAndClaim`: one script call when the range lies in the finished record's shard
 * (always with one shard; in a Cluster a script touches one hash tag only). Otherwise the
 * write, then `claimMany` over the range's shards (or, when the write did not apply and
 * this is a `repeat`, only what the uuids hold there).
 */
export async function finishAndClaim(
  redis: RedisClient,
  keys: RedisKeys,
  write: { id: string; reservation: Reservation; change: RecordWrite },
  range: IdRange | undefined,
  reservations: readonly Reservation[],
  repeat: boolean,
  clock: ServerClock,
): Promise<FinishClaimed> {
  const { id, reservation, change } = write;
  const own = keys.shardOf(id);
  const shards = keys.shardsIn(range);
  const lockId = reservations[0]?.lockId ?? reservation.lockId;
  const recordKeys = recordScriptKeys(own, id);
  if (shards.length === 1 && shards[0]?.txPrefix === own.txPrefix) {
    const [min, max] = idBounds(range);
    const uuids = reservations.map((r) => r.uuid);
    const claimArgs = [min, max, own.txPrefix, lockId, MAX_DUE_MOVED, 'claim', ...uuids];
    const [written, reply] = (await FINISH_CLAIM_SCRIPT.run(redis, {
      keys: recordKeys,
      args: [...writeArgs(id, reservation, change), ...claimArgs],
    })) as [number, ClaimReply];
    return { written: written === 1, claimed: claimedRecords(reply, lockId) };
  }
  const args = writeArgs(id, reservation, change);
  const written = (await RECORD_SCRIPTS.write.run(redis, { keys: recordKeys, args })) === 1;
  if (!written && !repeat) return { written, claimed: [] };
  return {
    written,
    claimed: await claimMany(redis, shards, range, reservations, repeat, clock, !written),
  };
}
