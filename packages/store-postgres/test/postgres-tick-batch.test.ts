import { describe, expect, it } from 'vitest';
import { TickBatch, type TickBatchRunner } from '../src/postgres-tick-batch.js';

/** A fake statement runner: records what ran alone and in batches; `fail` decides failures. */
function fakeRunner(fail: (items: readonly string[]) => unknown = () => undefined) {
  const alone: string[] = [];
  const batches: string[][] = [];
  const runner: TickBatchRunner<string, string> = {
    key: (item) => item.split(':')[0] as string,
    async one(item) {
      alone.push(item);
      const error = fail([item]);
      if (error) throw error;
      return `one ${item}`;
    },
    async many(items) {
      batches.push([...items]);
      const error = fail(items);
      if (error) throw error;
      return items.map((item) => `many ${item}`);
    },
  };
  return { runner, alone, batches };
}

const serverError = (code: string) => Object.assign(new Error(`server says ${code}`), { code });

describe('postgres backend: TickBatch, the calls of one tick as one statement', () => {
  it('sends the calls of one tick as one batch, in key order, each with its own answer', async () => {
    const f = fakeRunner();
    const batch = new TickBatch(f.runner);
    const answers = await Promise.all(['c', 'a', 'b'].map((item) => batch.submit(item)));
    expect(answers).toEqual(['many c', 'many a', 'many b']);
    expect(f.batches).toEqual([['a', 'b', 'c']]);
    expect(f.alone).toEqual([]);
  });

  it('sends a call alone when it is the only one of its tick', async () => {
    const f = fakeRunner();
    const batch = new TickBatch(f.runner);
    expect(await batch.submit('a')).toBe('one a');
    expect(await batch.submit('b')).toBe('one b');
    expect(f.batches).toEqual([]);
    expect(f.alone).toEqual(['a', 'b']);
  });

  it('holds a second call on the same row for the next batch', async () => {
    const f = fakeRunner();
    const batch = new TickBatch(f.runner);
    const answers = await Promise.all(
      ['a:1', 'b:1', 'a:2', 'c:1', 'a:3'].map((i) => batch.submit(i)),
    );
    expect(answers).toEqual(['many a:1', 'many b:1', 'one a:2', 'many c:1', 'one a:3']);
    expect(f.batches).toEqual([['a:1', 'b:1', 'c:1']]);
    expect(f.alone).toEqual(['a:2', 'a:3']);
  });

  it('sends each call again alone when the server rolled the batch back, so a bad one fails alone', async () => {
    const bad = serverError('22021');
    const f = fakeRunner((items) => (items.includes('b') ? bad : undefined));
    const batch = new TickBatch(f.runner);
    const settled = await Promise.allSettled(['a', 'b', 'c'].map((i) => batch.submit(i)));
    expect(settled).toEqual([
      { status: 'fulfilled', value: 'one a' },
      { status: 'rejected', reason: bad },
      { status: 'fulfilled', value: 'one c' },
    ]);
    expect(f.batches).toEqual([['a', 'b', 'c']]);
  });

  it.each([
    ['a lost connection', Object.assign(new Error('Connection terminated'), {})],
    ['a connection failure class', serverError('08006')],
    ['a server shutting down', serverError('57P01')],
    ['too many connections', serverError('53300')],
    ['a socket error', Object.assign(new Error('reset'), { code: 'ECONNRESET' })],
  ])(
    'fails every call of the batch with %s (its outcome unknown), sending none again',
    async (_what, error) => {
      const f = fakeRunner((items) => (items.length > 1 ? error : undefined));
      const batch = new TickBatch(f.runner);
      const settled = await Promise.allSettled(['a', 'b'].map((i) => batch.submit(i)));
      expect(settled).toEqual([
        { status: 'rejected', reason: error },
        { status: 'rejected', reason: error },
      ]);
      expect(f.alone).toEqual([]);
    },
  );

  it('drain waits for the batch being sent and the ones waiting', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const done: string[] = [];
    const batch = new TickBatch<string, string>({
      key: (i) => i,
      one: async (i) => i,
      async many(items) {
        await gate;
        done.push(...items);
        return [...items];
      },
    });
    void batch.submit('a');
    void batch.submit('b');
    let drained = false;
    const draining = batch.drain().then(() => {
      drained = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(drained).toBe(false);
    release();
    await draining;
    expect(done).toEqual(['a', 'b']);
  });
});
