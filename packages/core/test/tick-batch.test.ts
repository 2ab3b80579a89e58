import { describe, expect, it } from 'vitest';
import { TickBatch, type TickBatchRunner } from '../src/tick-batch.js';

/** A store's error that says the request applied nothing (as PostgreSQL's SQLSTATEs can). */
const refused = (error: unknown) => (error as { refused?: boolean }).refused === true;

/** A fake request runner: records what ran alone and in batches; `fail` decides failures. */
function fakeRunner(fail: (items: readonly string[]) => unknown = () => undefined) {
  const alone: string[] = [];
  const batches: string[][] = [];
  const runner: TickBatchRunner<string, string> = {
    key: (item) => item.split(':')[0] as string,
    sendAgainAlone: refused,
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

const failure = (what: string, refused: boolean) =>
  Object.assign(new Error(`the store says ${what}`), { refused });

describe('TickBatch: the calls of one tick as one request', () => {
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

  it('sends each call again alone when the store says the batch applied nothing, so a bad one fails alone', async () => {
    const bad = failure('no', true);
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

  it('fails every call of the batch when its failure may have applied some (its outcome unknown), sending none again', async () => {
    const lost = failure('connection lost', false);
    const f = fakeRunner((items) => (items.length > 1 ? lost : undefined));
    const batch = new TickBatch(f.runner);
    const settled = await Promise.allSettled(['a', 'b'].map((i) => batch.submit(i)));
    expect(settled).toEqual([
      { status: 'rejected', reason: lost },
      { status: 'rejected', reason: lost },
    ]);
    expect(f.alone).toEqual([]);
  });

  it('without sendAgainAlone, fails every call of a failed batch', async () => {
    const bad = failure('no', true);
    const batch = new TickBatch<string, string>({
      key: (i) => i,
      one: async (i) => i,
      many: async () => {
        throw bad;
      },
    });
    const settled = await Promise.allSettled(['a', 'b'].map((i) => batch.submit(i)));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  });

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
