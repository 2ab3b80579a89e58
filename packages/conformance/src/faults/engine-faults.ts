import { type FateId, type RecordWrite, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { allDone, FAST_STORE, lapsingEngine, useEngines } from '../engine/engine-context.js';
import { script, scriptData } from '../engine/steps.js';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, mapLimit, rejection } from '../store/context.js';

const releases = (_id: FateId, _r: unknown, change: RecordWrite) => change.release !== undefined;

export function engineFaultTests(target: ConformanceTarget): void {
  describe('faults: engines under lost replies, restarts and shutdown', () => {
    const ctx = useEngines(target);

    it('resumes what a process held when it restarts at once under the same instance id', async () => {
      const before = await ctx.client({ instanceId: 'engine-1', livenessTimeoutMs: 1_000 });
      await before.registerInstance();
      const { id } = await before.seed({ step: scriptData(2), opName: 'op' });
      await before.reserve(id); // then the process dies: no heartbeat, no release
      const after = await ctx.engine({}, { instanceId: 'engine-1', livenessTimeoutMs: 1_000 });
      const result = await after.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.SUCCESSFUL);
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:2']);
    });

    it('runs a transaction whose reservation reply was lost, once or for good', async () => {
      const { store, faults } = await ctx.faultyClient();
      const fate = await ctx.engine({ store });
      // an engine reserves with claimMany where the store claims many, else tryReserve
      faults.inject('lose-reply', 'tryReserve', 1);
      faults.inject('lose-reply', 'claimMany', 1);
      const once = await fate.seed(script(2), { opName: 'op' });
      expect((await fate.waitForCompletion(once.id, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      faults.inject('lose-reply', 'tryReserve', 4); // every repeat of one reservation
      faults.inject('lose-reply', 'claimMany', 4);
      const unknown = await fate.seed(script(2), { opName: 'op' });
      expect((await fate.waitForCompletion(unknown.id, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      for (const id of [once.id, unknown.id]) {
        expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:2']);
      }
    });

    it('runs again what a store lost after acknowledging its release', async () => {
      const { store, faults } = await ctx.faultyClient();
      const fate = await ctx.engine({ store, reconcileMs: 300 });
      faults.inject('drop', 'write', 1, releases);
      const { id } = await fate.seed(script(2, { deferMs: 50 }), { opName: 'op' });
      const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.SUCCESSFUL);
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:2']);
    });

    it.each(['throw', 'bigint', 'date', 'huge'] as const)(
      'fails and undoes a transaction whose return value cannot be stored (%s), running its step once',
      async (badResult) => {
        const store = await ctx.client();
        const fate = await ctx.engine({ store });
        const hugeBytes = store.capabilities.maxRecordBytes + 1;
        const { id } = await fate.seed(script(2, { badResult, hugeBytes }), { opName: 'op' });
        const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
        expect(result.status).toBe(Status.FAILED);
        expect(result.error?.message).toBeTruthy();
        await new Promise((r) => setTimeout(r, 300)); // a hot loop would run it again meanwhile
        expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:2', 'undo:2', 'undo:1']);
      },
    );

    it('finishes a transaction whose stored info was corrupted during its last step, running it once', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(2, { sleepMs: 400, sleepAt: 2 }), { opName: 'op' });
      await eventually(
        'the last step is running',
        async () => ctx.env.calls.has(`${id}:2`),
        10_000,
      );
      await ctx.fixture.corrupt(id, 'info');
      let view: Awaited<ReturnType<typeof fate.read>> | undefined;
      await eventually(
        'the transaction ends',
        async () => {
          view = await fate.read(id).catch(() => undefined);
          return view?.status === Status.SUCCESSFUL || view?.status === Status.FAILED;
        },
        10_000,
      );
      // the holder's finishing write replaces the info whole with its own copy: the bytes
      // written behind its back are gone, and the step ran once
      expect(view?.status).toBe(Status.SUCCESSFUL);
      expect(view?.info.opName).toBe('op');
      await new Promise((r) => setTimeout(r, 300)); // a hot loop would run it again meanwhile
      expect(ctx.env.calls.get(`${id}:2`)).toBe(1);
    });

    it('runs nothing reserved while its own lease lapsed, even once the lease is back', async () => {
      const { faults, lapse, fate } = await lapsingEngine(ctx); // lease 550 ms
      // The reservation applies and its reply waits while heartbeats fail until the lease
      // lapses (others may clear it meanwhile), then flow again: the run must not start.
      // (An engine reserves with tryReserve, or with claimMany where the store claims many.)
      let held = false;
      const holdReply = async () => {
        if (held) return;
        held = true;
        const beats = faults.calls.get('heartbeat') ?? 0;
        faults.inject('fail', 'heartbeat', 8);
        await eventually('the lease lapsed', async () => lapse.lapsed(), 5_000);
        const back = async () => (faults.calls.get('heartbeat') ?? 0) >= beats + 10;
        await eventually('heartbeats are acknowledged again', back, 5_000);
      };
      faults.after('tryReserve', holdReply);
      faults.after('claimMany', holdReply);
      const { id } = await fate.seed(script(1), { opName: 'op' });
      expect((await fate.waitForCompletion(id, { timeoutMs: 15_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      const reserves = (faults.calls.get('tryReserve') ?? 0) + (faults.calls.get('claimMany') ?? 0);
      expect(reserves).toBeGreaterThanOrEqual(2); // the first run gave up
      expect(ctx.env.log.get(id)).toEqual(['call:1']);
    });

    it('never lets a step run on two live holders when shutdown runs out of time', async () => {
      // the second sorts first: where one leader cleans, it is the cleaner; it starts once
      // the step runs on the first, so the step surely is the first's
      const first = await ctx.engine({}, { ...FAST_STORE, instanceId: 'b-first' });
      const { id } = await first.seed(script(2, { sleepMs: 1_500, sleepAt: 1 }), {
        opName: 'op',
      });
      await eventually('the step is running', async () => ctx.env.calls.size > 0, 10_000);
      const second = await ctx.engine({}, { ...FAST_STORE, instanceId: 'a-second' });
      await first.shutdown(100); // the step ignores its signal and runs on for 1.5 s
      const result = await second.waitForCompletion(id, { timeoutMs: 20_000 });
      expect(result.status).toBe(Status.SUCCESSFUL);
      expect(ctx.env.overlaps).toEqual([]);
      expect(ctx.env.calls.get(`${id}:1`)).toBe(1);
    });

    it('aborts a step that honours its signal when shutdown runs out of time, failing nothing', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(2, { sleepMs: 30_000, sleepAt: 1, abortable: true }), {
        opName: 'op',
      });
      await eventually('the step is running', async () => ctx.env.calls.size > 0, 10_000);
      const started = performance.now();
      await fate.shutdown(200);
      expect(performance.now() - started).toBeLessThan(5_000);
      const view = await fate.read(id);
      expect(view.status).toBe(Status.IN_PROGRESS); // not failed for it, and free to run elsewhere
      expect(view.reservation).toBeUndefined();
      expect(view.info.error).toBeUndefined();
      expect((await (await ctx.client()).scanRunnable()).ids).toEqual([id]);
    });

    it('gives plain registered clients no partition: every transaction runs', async () => {
      const plain = await ctx.client({ ...FAST_STORE, instanceId: '0-plain-client' });
      await plain.registerInstance();
      const timer = setInterval(() => void plain.heartbeat().catch(() => undefined), 100);
      try {
        const fate = await ctx.engine({}, { ...FAST_STORE, instanceId: 'z-engine' });
        const ids = await mapLimit(
          Array.from({ length: 50 }),
          10,
          async () => (await fate.seed(script(1), { opName: 'op' })).id,
        );
        const results = await allDone(fate, ids, 20_000);
        expect(results.every((r) => r.status === Status.SUCCESSFUL)).toBe(true);
        // and the dead are still cleared although a plain client has the lowest id
        const dying = await ctx.client({ livenessTimeoutMs: 500 });
        await dying.registerInstance();
        const { id } = await dying.seed({ step: scriptData(1), opName: 'op' });
        await dying.reserve(id);
        expect((await fate.waitForCompletion(id, { timeoutMs: 10_000 })).status).toBe(
          Status.SUCCESSFUL,
        );
      } finally {
        clearInterval(timer);
      }
    });

    it('keeps a holder through a store outage longer than the liveness timeout', async () => {
      // a short liveness timeout (heartbeats stay at 100 ms): the outage below is shorter too
      const short = { ...FAST_STORE, livenessTimeoutMs: 500 };
      const a = await ctx.faultyClient({ ...short, instanceId: 'b-holder' });
      const b = await ctx.faultyClient({ ...short, instanceId: 'a-cleaner' });
      const holder = await ctx.engine({ store: a.store });
      const watcher = await ctx.client();
      // the step outlasts the outage: it runs on while the holder cannot renew
      const { id } = await holder.seed(script(2, { sleepMs: 2_000, sleepAt: 1 }), {
        opName: 'op',
      });
      await eventually('the long step is running', async () => ctx.env.calls.size > 0, 10_000);
      await ctx.engine({ store: b.store }); // after: the step surely is the holder's
      const outage = 2.5 * a.store.livenessTimeoutMs;
      a.faults.outage(outage + 300); // the holder is back 3 heartbeats after the cleaner
      b.faults.outage(outage);
      await eventually(
        'the transaction finished',
        async () => (await watcher.read(id)).status === Status.SUCCESSFUL,
        30_000,
      );
      expect(ctx.env.overlaps).toEqual([]);
      expect(ctx.env.calls.get(`${id}:1`)).toBe(1);
    });

    it('derives the heartbeat from the liveness timeout, and refuses one too slow for it', async () => {
      const store = await ctx.client({ livenessTimeoutMs: 500 });
      // the defaults: with another period set short, the engine could beat by it
      await ctx.engine({ store, heartbeatMs: undefined, deadReservationCheckMs: undefined });
      const watcher = await ctx.client();
      let dead = 0;
      for (let i = 0; i < 40; i++) {
        if (!(await watcher.isAlive(store.lockId))) dead++;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(dead).toBe(0);
      const slow = await ctx.client({ livenessTimeoutMs: 500 });
      const err = await rejection(ctx.engine({ store: slow, heartbeatMs: 400 }));
      expect(err.code).toBe('FATE_INVALID_ARGUMENT');
    });
  });
}
