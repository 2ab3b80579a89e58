// A claim riding on a finishing write (`finish-claims.ts`) over a stub host: one
// finishAndClaim call per attempt with the same reservations, the claim's outcome by the
// write's verdict (taken, left to the ledger, or let go), and the fallback for a backend
// without finishAndClaim (the plain write, then a claim once it applied).
import { describe, expect, it, vi } from 'vitest';
import type { ClaimHost } from '../src/guard/claims.js';
import { FinishClaim } from '../src/guard/finish-claims.js';
import {
  type ClaimedRecord,
  type FateId,
  newFateId,
  type RecordWrite,
  type Reservation,
} from '../src/index.js';
import { submittedRecord as record } from './test-steps.js';

const ours = { lockId: 'me', uuid: 'held' };
const change: RecordWrite = { status: 'SUCCESSFUL', release: { deferMs: 0 } };
const range = { start: undefined, end: undefined } as never;

/**
 * A host whose backend finishes and claims (`claims` picks what it takes from the slots it is
 * given) or, with `plain`, only writes; `cleared` lists clearReservation calls.
 */
function host(opts: {
  plain?: boolean;
  claims?: (rs: Reservation[]) => ClaimedRecord[];
  clearFails?: boolean;
}) {
  const ledger = {
    pending: vi.fn(),
    forget: vi.fn(),
    uncertainClaims: vi.fn(),
    uncertain: vi.fn(),
  };
  const calls: unknown[][] = [];
  const cleared: string[] = [];
  const backend = {
    write: async (...args: unknown[]) => {
      calls.push(['write', ...args]);
      return true;
    },
    scanRunnable: async () => ({ ids: [] }),
    claimMany: async (_range: unknown, rs: Reservation[]) => {
      calls.push(['claimMany', rs.length]);
      return opts.claims?.(rs) ?? [];
    },
    clearReservation: async (id: string) => {
      cleared.push(id);
      if (opts.clearFails) throw new Error('away');
    },
    ...(opts.plain
      ? {}
      : {
          finishAndClaim: async (...args: unknown[]) => {
            calls.push(['finishAndClaim', ...args]);
            const rs = args[4] as Reservation[];
            return { written: true, claimed: opts.claims?.(rs) ?? [] };
          },
        }),
  };
  const h = {
    lockId: 'me',
    backend,
    ledger,
    caller: {
      call: (_what: string, fn: (b: unknown) => Promise<unknown>) => fn(backend),
      retried: (_what: string, fn: (b: unknown) => Promise<unknown>) => fn(backend),
    },
    tryReserve: async () => undefined,
    handle: async (id: FateId, reservation: Reservation) => ({ id, reservation }),
  } as unknown as ClaimHost;
  return { h, ledger, calls, cleared };
}

/** The first slot's reservation claims `id`. */
const takesOne = (id: FateId) => (rs: Reservation[]) => [
  { id: id as string, op: '', record: record(rs[0] ?? null) },
];

describe('a claim riding on the finishing write', () => {
  it('asks finishAndClaim with the same reservations on every attempt, and takes what it claimed', async () => {
    const next = newFateId();
    const { h, calls } = host({ claims: takesOne(next) });
    const claim = new FinishClaim(h, range, 2);
    const id = newFateId();
    expect(await claim.send(id, ours, change)).toBe(true);
    expect(await claim.send(id, ours, change)).toBe(true); // a repeat after a lost reply
    const [first, second] = calls.filter((c) => c[0] === 'finishAndClaim');
    expect(first?.slice(1, 4)).toEqual([id, ours, change]);
    expect(first?.[5]).toHaveLength(2);
    expect(second?.[5]).toBe(first?.[5]);
    claim.settle('written');
    const result = await claim.result;
    expect(result.claimed.map((c) => (c as unknown as { id: FateId }).id)).toEqual([next]);
    expect(calls.some((c) => c[0] === 'write')).toBe(false);
  });

  it('is settled once: a later verdict changes nothing', async () => {
    const { h, ledger } = host({ claims: takesOne(newFateId()) });
    const claim = new FinishClaim(h, range, 1);
    await claim.send(newFateId(), ours, change);
    claim.settle('written');
    claim.settle('unknown');
    claim.cancel();
    expect((await claim.result).claimed).toHaveLength(1);
    expect(ledger.uncertainClaims).not.toHaveBeenCalled();
  });

  it('leaves an unknown outcome to the ledger, claiming nothing', async () => {
    const { h, ledger } = host({ claims: takesOne(newFateId()) });
    const claim = new FinishClaim(h, range, 3);
    await claim.send(newFateId(), ours, change);
    claim.settle('unknown');
    expect(await claim.result).toStrictEqual({ claimed: [], refused: [] });
    expect(ledger.uncertainClaims).toHaveBeenCalledTimes(1);
    expect(ledger.uncertainClaims.mock.calls[0]?.[0]).toHaveLength(3);
  });

  it('lets go what came back with a write fenced off, and forgets every slot', async () => {
    const next = newFateId();
    const stranger = newFateId();
    const claims = (rs: Reservation[]) => [
      ...takesOne(next)(rs),
      { id: stranger as string, op: '', record: record({ lockId: 'other', uuid: 'x' }) },
    ];
    const { h, ledger, cleared } = host({ claims });
    const claim = new FinishClaim(h, range, 2);
    await claim.send(newFateId(), ours, change);
    claim.settle('refused');
    expect(await claim.result).toStrictEqual({ claimed: [], refused: [] });
    expect(cleared).toEqual([next]);
    expect(ledger.forget).toHaveBeenCalledTimes(2);
    expect(ledger.uncertain).not.toHaveBeenCalled();
    // a release that fails is left to the ledger
    const failing = host({ claims, clearFails: true });
    const again = new FinishClaim(failing.h, range, 2);
    await again.send(newFateId(), ours, change);
    again.settle('refused');
    await again.result;
    expect(failing.ledger.uncertain).toHaveBeenCalledWith(
      next,
      expect.objectContaining({ lockId: 'me' }),
    );
  });

  it('without finishAndClaim, writes plainly and claims only once the write applied', async () => {
    const next = newFateId();
    const written = host({ plain: true, claims: takesOne(next) });
    const claim = new FinishClaim(written.h, range, 2);
    const id = newFateId();
    expect(await claim.send(id, ours, change)).toBe(true);
    expect(written.calls[0]).toEqual(['write', id, ours, change]);
    claim.settle('written');
    const result = await claim.result;
    expect(result.claimed).toHaveLength(1);
    expect(written.calls.map((c) => c[0])).toEqual(['write', 'claimMany']);
    for (const verdict of ['refused', 'unknown'] as const) {
      const other = host({ plain: true, claims: takesOne(next) });
      const c = new FinishClaim(other.h, range, 2);
      await c.send(newFateId(), ours, change);
      c.settle(verdict);
      expect(await c.result).toStrictEqual({ claimed: [], refused: [] });
      expect(other.calls.map((x) => x[0])).toEqual(['write']);
    }
  });

  it('claims nothing when cancelled before any write, and nothing when the claim after the write fails', async () => {
    const { h, calls } = host({ claims: takesOne(newFateId()) });
    const cancelled = new FinishClaim(h, range, 2);
    cancelled.cancel();
    expect(await cancelled.result).toStrictEqual({ claimed: [], refused: [] });
    expect(calls).toEqual([]);
    const failing = host({
      plain: true,
      claims: () => {
        throw new Error('the claim failed');
      },
    });
    const claim = new FinishClaim(failing.h, range, 2);
    await claim.send(newFateId(), ours, change);
    claim.settle('written');
    expect(await claim.result).toStrictEqual({ claimed: [], refused: [] });
  });
});
