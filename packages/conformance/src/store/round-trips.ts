import { randomUUID } from 'node:crypto';
import { newFateId, type Reservation, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { step, useFixture, withBackend } from './context.js';

/**
 * Text a careless store changes: surrounding whitespace (trimmed), CR LF (to LF), a
 * combining accent (NFC makes it one character), astral characters (a 3-byte utf8 column).
 * NUL (which ends a C string, and which PostgreSQL's text refuses) comes only inside JSON
 * (escaped): op names may not hold it, the guard refuses them.
 */
const OP_TEXT = '  zoë\r\n\t🚀𝄞 e\u0301 end  ';
const TRICKY = `${OP_TEXT}\u0000 nul`;
/** Not Unicode text on its own, so only inside JSON values (which escape it). */
const LONE_SURROGATE = '\ud800';

/** JSON texts as a backend may be given them: valid JSON, with whitespace around and inside. */
const RAW_STACK = '\r\n [ {"type":"e\u0301","state":"🚀 \\u0000 zoë\\r\\n"} ]\t\r\n ';
const RAW_INFO = ' \t{"opName":"x\u0301 𝄞", "n": 1}\r\n';
const RAW_OP = '  op\r\n\t🚀 e\u0301 end  ';
const RAW_STACK_2 = '[\r\n]  ';
const RAW_INFO_2 = '  { "key" : { "type" : "t", "key" : "🚀\\r\\n" } }\r\n';

export function roundTripTests(target: ConformanceTarget): void {
  describe('byte-exact round trips', () => {
    const ctx = useFixture(target);

    it('keeps an op name byte for byte in scans, list and info', async () => {
      const { id } = await ctx.store.seed({ step: step(), opName: OP_TEXT });
      const other = await ctx.client();
      const scan = await other.scanRunnable();
      expect(scan.ids).toEqual([id]);
      expect(scan.ops).toEqual([OP_TEXT]);
      expect((await other.read(id)).info.opName).toBe(OP_TEXT);
      expect((await other.list({ opName: OP_TEXT })).map((t) => t.id)).toEqual([id]);
      await expect(ctx.store.seed({ step: step(), opName: 'a\u0000b' })).rejects.toMatchObject({
        code: 'FATE_INVALID_ARGUMENT',
      });
    });

    it('keeps step states and info values byte for byte, up to 1 MiB', async () => {
      // within every backend's limit: at most a quarter of it, whatever the encoding
      const units = Math.min(1024 * 1024, Math.floor(ctx.store.capabilities.maxRecordBytes / 8));
      const big = `${TRICKY}${'é🚀x'.repeat(Math.floor(units / 4))}${TRICKY}`;
      const id = await ctx.store.create();
      const h = await ctx.store.reserve(id);
      await h.push(step(TRICKY, { [TRICKY]: [TRICKY, 1.5, null] }));
      await h.setInfo('returnValue', { text: TRICKY, big, lone: LONE_SURROGATE });
      await h.setInfo('error', { message: TRICKY, name: TRICKY, stack: TRICKY });
      await h.unreserve();
      const view = await (await ctx.client()).read(id);
      expect(view.stack).toEqual([step(TRICKY, { [TRICKY]: [TRICKY, 1.5, null] })]);
      expect(view.info.returnValue).toEqual({ text: TRICKY, big, lone: LONE_SURROGATE });
      expect(view.info.error).toEqual({ message: TRICKY, name: TRICKY, stack: TRICKY });
    });

    it('gives back exactly the texts a backend was given, from every call that returns them (raw backend)', async () => {
      const id = newFateId();
      const mine: Reservation = { lockId: 'w1@0a1b2c', uuid: randomUUID() };
      await withBackend(ctx.fixture, async (backend) => {
        const record = { status: Status.SUBMITTED, stack: RAW_STACK, info: RAW_INFO, op: RAW_OP };
        expect(await backend.insert(id, record)).toBe(true);
        const stored = { status: Status.SUBMITTED, stack: RAW_STACK, info: RAW_INFO };
        expect(await backend.read(id)).toEqual({ ...stored, reservation: null, deferUntil: 0 });
        expect((await backend.list()).find((r) => r.id === id)?.record).toEqual({
          ...stored,
          reservation: null,
          deferUntil: 0,
        });
        expect(await backend.scanRunnable(undefined, 10)).toMatchObject({
          ids: [id],
          ops: [RAW_OP],
        });
        expect(await backend.tryReserve(id, mine)).toEqual({
          ...stored,
          reservation: mine,
          deferUntil: 0,
        });
        expect(await backend.reservations()).toEqual([{ id, reservation: mine }]);
        expect(await backend.write(id, mine, { stack: RAW_STACK_2, info: RAW_INFO_2 })).toBe(true);
        expect(await backend.read(id)).toEqual({
          status: Status.SUBMITTED,
          stack: RAW_STACK_2,
          info: RAW_INFO_2,
          reservation: mine,
          deferUntil: 0,
        });
      });
    });

    it('keeps a liveness record’s state byte for byte: a membership group of any text', async () => {
      const group = TRICKY;
      const engine = await ctx.client();
      await engine.registerInstance({ group });
      const live = await ctx.store.liveInstances();
      expect(live.find((i) => i.lockId === engine.lockId)?.group).toBe(group);
      const records = await ctx.store.instanceRecords();
      expect(records.find((r) => r.lockId === engine.lockId)?.group).toBe(group);
    });
  });
}
