// A claim's bookkeeping (`claims.ts`) over a host whose every part each case sets: which way
// it claims, what it takes as its own, what the ledger is told on each outcome, and the
// fallback of a scan and one reservation an id.
import { describe, expect, it, vi } from 'vitest';
import { type ClaimHost, claimOneByOne, claimRunnable, takeClaimed } from '../src/guard/claims.js';
import {
  type ClaimedRecord,
  FateError,
  FateErrorCode,
  type FateId,
  type FateStore,
  MAX_CLAIM,
  newFateId,
  type Reservation,
} from '../src/index.js';
import { submittedRecord as record } from './test-steps.js';

/** A host over a backend with (or without) `claimMany`; `claimMany` answers `answer(reservations)`. */
function host(opts: {
  claimMany?: (reservations: Reservation[]) => Promise<ClaimedRecord[]>;
  scan?: FateId[];
  tryReserve?: (id: FateId) => Promise<FateStore | undefined>;
}) {
  const ledger = { pending: vi.fn(), forget: vi.fn(), uncertainClaims: vi.fn() };
  const calls: string[] = [];
  const backend = {
    ...(opts.claimMany ? { claimMany: () => undefined } : {}),
  };
  const h = {
    lockId: 'me',
    backend,
    ledger,
    caller: {
      retried: async (what: string, fn: (b: unknown) => Promise<unknown>) => {
        calls.push(what);
        if (what === 'claimMany') {
          return fn({
            claimMany: (_range: unknown, reservations: Reservation[]) =>
              opts.claimMany?.(reservations),
          });
        }
        return { ids: opts.scan ?? [] };
      },
    },
    tryReserve: opts.tryReserve ?? (async () => undefined),
    handle: vi.fn(async (id: FateId, reservation: Reservation) => ({ id, reservation })),
  } as unknown as ClaimHost & { handle: ReturnType<typeof vi.fn> };
  return { h, ledger, calls };
}

describe('claimRunnable', () => {
  it('claims in one claimMany call where the backend has it, else by a scan', async () => {
    const batched = host({ claimMany: async () => [] });
    await claimRunnable(batched.h, undefined, { limit: 3 });
    expect(batched.calls).toEqual(['claimMany']);
    const plain = host({});
    await claimRunnable(plain.h, undefined, { limit: 3 });
    expect(plain.calls).toEqual(['scanRunnable']);
  });

  it('takes a limit from 1 to 1,000, and nothing else', async () => {
    const { h } = host({ claimMany: async () => [] });
    await expect(claimRunnable(h, undefined, { limit: MAX_CLAIM })).resolves.toEqual({
      claimed: [],
      refused: [],
    });
    for (const options of [{ limit: MAX_CLAIM + 1 }, { limit: 0 }, { limit: 1.5 }, undefined]) {
      await expect(
        claimRunnable(h, undefined, options as never),
        JSON.stringify(options),
      ).rejects.toMatchObject({ code: 'FATE_INVALID_ARGUMENT' });
    }
  });

  it('leaves the ledger to clear an unknown outcome, and forgets the slots of a known failure', async () => {
    const away = host({
      claimMany: async () => {
        throw new FateError(FateErrorCode.STORE_UNAVAILABLE, 'away');
      },
    });
    await expect(claimRunnable(away.h, undefined, { limit: 2 })).rejects.toThrow('away');
    expect(away.ledger.uncertainClaims).toHaveBeenCalledTimes(1);
    expect(away.ledger.forget).not.toHaveBeenCalled();
    const refused = host({
      claimMany: async () => {
        throw new FateError(FateErrorCode.INVALID_ARGUMENT, 'bad range');
      },
    });
    await expect(claimRunnable(refused.h, undefined, { limit: 2 })).rejects.toThrow('bad range');
    expect(refused.ledger.uncertainClaims).not.toHaveBeenCalled();
    expect(refused.ledger.forget).toHaveBeenCalledTimes(2);
  });
});

describe('takeClaimed', () => {
  it('takes only records held under one of its own reservations, and forgets the unused slots', async () => {
    const { h, ledger } = host({});
    const mine = [
      { lockId: 'me', uuid: 'a' },
      { lockId: 'me', uuid: 'b' },
      { lockId: 'me', uuid: 'c' },
    ];
    const [ours, strangers, foreignLock, unreserved] = [1, 2, 3, 4].map(() => newFateId());
    const result = await takeClaimed(h, mine, [
      { id: ours as string, op: '', record: record({ lockId: 'me', uuid: 'a' }) },
      { id: strangers as string, op: '', record: record({ lockId: 'other', uuid: 'zz' }) },
      { id: foreignLock as string, op: '', record: record({ lockId: 'other', uuid: 'b' }) },
      { id: unreserved as string, op: '', record: record(null) },
    ]);
    expect(result).toEqual({ claimed: [{ id: ours, reservation: mine[0] }], refused: [] });
    expect(ledger.forget.mock.calls.map(([uuid]) => uuid)).toEqual(['b', 'c']);
  });
});

describe('takeClaimed, a record it cannot make a handle of', () => {
  it('is refused with the error, and the claim goes on', async () => {
    const { h } = host({});
    const [bad, good] = [newFateId(), newFateId()];
    const broken = new FateError(FateErrorCode.CORRUPT_DATA, 'garbled');
    h.handle.mockImplementationOnce(async () => {
      throw broken;
    });
    const mine = [
      { lockId: 'me', uuid: 'a' },
      { lockId: 'me', uuid: 'b' },
    ];
    const result = await takeClaimed(h, mine, [
      { id: bad as string, op: '', record: record(mine[0] ?? null) },
      { id: good as string, op: '', record: record(mine[1] ?? null) },
    ]);
    expect(result).toEqual({
      claimed: [{ id: good, reservation: mine[1] }],
      refused: [{ id: bad, error: broken }],
    });
  });
});

describe('claimOneByOne', () => {
  const handleOf = (id: FateId) => ({ id }) as unknown as FateStore;

  it('reserves each id of the scan; a record that does not decode is refused, a taken one skipped', async () => {
    const [free, taken, corrupt] = [1, 2, 3].map(() => newFateId());
    const { h } = host({
      scan: [free, taken, corrupt] as FateId[],
      tryReserve: async (id) => {
        if (id === corrupt) throw new FateError(FateErrorCode.CORRUPT_DATA, 'garbled');
        return id === free ? handleOf(id) : undefined;
      },
    });
    const result = await claimOneByOne(h, undefined, 3);
    expect(result.claimed).toEqual([{ id: free }]);
    expect(result.refused.map((r) => [r.id, (r.error as FateError).code])).toEqual([
      [corrupt, FateErrorCode.CORRUPT_DATA],
    ]);
  });

  it('answers with the store failure only when it claimed nothing', async () => {
    const [ok, failing] = [1, 2].map(() => newFateId());
    const away = new FateError(FateErrorCode.STORE_UNAVAILABLE, 'away');
    const some = host({
      scan: [ok, failing] as FateId[],
      tryReserve: async (id) => {
        if (id === failing) throw away;
        return handleOf(id);
      },
    });
    expect((await claimOneByOne(some.h, undefined, 2)).claimed).toEqual([{ id: ok }]);
    const none = host({
      scan: [failing] as FateId[],
      tryReserve: async () => {
        throw away;
      },
    });
    await expect(claimOneByOne(none.h, undefined, 2)).rejects.toBe(away);
    const empty = host({ scan: [] });
    expect(await claimOneByOne(empty.h, undefined, 2)).toStrictEqual({ claimed: [], refused: [] });
  });
});
