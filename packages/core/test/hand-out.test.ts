// handOut: how the work finder hands one page of ids to its pools' queues — in page order per
// pool, ops it does not run reported, a full pool waited for only while no other pool has an
// idle worker, and nothing more handed out once the finder stops.
import { describe, expect, it } from 'vitest';
import { type HandOutHost, handOut } from '../src/engine/hand-out.js';
import { WorkQueue } from '../src/engine/work-queue.js';
import { type FateId, newFateId } from '../src/index.js';

/** A host over the given pools, routing op `a` to the first, `b` to the second. */
function hostOf(queues: WorkQueue[], going = () => true) {
  const foreign: string[] = [];
  let wake: (() => void) | undefined;
  const host: HandOutHost = {
    route: (op) => ({ a: queues[0], b: queues[1] })[op],
    queues,
    foreign: (op) => foreign.push(op),
    starved: new Set<WorkQueue>(),
    going,
    wakeUp: () =>
      new Promise<void>((r) => {
        wake = r;
      }),
  };
  return { host, foreign, wake: () => wake?.() };
}

const ids = (n: number): FateId[] => Array.from({ length: n }, () => newFateId());

/** Everything queued in `q`, in the order workers would take it. */
async function drain(q: WorkQueue): Promise<FateId[]> {
  const out: FateId[] = [];
  while (q.queued > 0) out.push((await q.take()) as FateId);
  return out;
}

// a wrong wait hangs: bounded here, not by the 60 s default
describe('handOut', { timeout: 5_000 }, () => {
  it('queues each id in its pool in the page’s order, reports foreign ops, counts what it queued', async () => {
    const [a, b] = [new WorkQueue(10), new WorkQueue(10)];
    const { host, foreign } = hostOf([a, b]);
    const page = ids(5);
    const found = await handOut(host, page, ['a', 'b', 'x', 'a', 'b']);
    expect(found).toBe(4);
    expect(foreign).toEqual(['x']);
    expect(await drain(a)).toEqual([page[0], page[3]]);
    expect(await drain(b)).toEqual([page[1], page[4]]);
    expect(host.starved.size).toBe(0);
  });

  it('does not count an id already held, and an op missing from the page is routed as ""', async () => {
    const a = new WorkQueue(10);
    const { host, foreign } = hostOf([a]);
    const [held, fresh, extra] = ids(3) as [FateId, FateId, FateId];
    a.tryOffer(held);
    expect(await handOut(host, [held, fresh, extra], ['a', 'a'])).toBe(1);
    expect(foreign).toEqual(['']);
    expect(await drain(a)).toEqual([held, fresh]);
  });

  it('leaves a full pool’s ids behind, marked starved, when another pool has an idle worker', async () => {
    const [a, b] = [new WorkQueue(1), new WorkQueue(1)];
    const { host } = hostOf([a, b]);
    void b.take();
    void b.take(); // b has two idle workers: one left after it takes page[2]
    const page = ids(3);
    expect(await handOut(host, page, ['a', 'a', 'b'])).toBe(2);
    expect([...host.starved]).toEqual([a]);
    expect(await drain(a)).toEqual([page[0]]);
  });

  it('waits for room in a full pool while no other pool has an idle worker, then queues the rest', async () => {
    const a = new WorkQueue(1);
    const b = new WorkQueue(1);
    b.tryOffer(newFateId()); // b is busy, no idle worker
    const { host } = hostOf([a, b]);
    const page = ids(3);
    let done = false;
    const handing = handOut(host, page, ['a', 'a', 'a']).then((n) => {
      done = true;
      return n;
    });
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    expect(await a.take()).toBe(page[0]); // room for one more
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    expect(await a.take()).toBe(page[1]);
    expect(await handing).toBe(3);
    expect(await drain(a)).toEqual([page[2]]);
    expect(host.starved.size).toBe(0);
  });

  it('stops handing out once the finder stops, woken from its wait', async () => {
    const a = new WorkQueue(1);
    let going = true;
    const { host, wake } = hostOf([a], () => going);
    const page = ids(3);
    const handing = handOut(host, page, ['a', 'a', 'a']);
    await new Promise((r) => setImmediate(r));
    going = false;
    wake();
    expect(await handing).toBe(1);
    expect(await drain(a)).toEqual([page[0]]);
  });

  it('hands out nothing when the finder has stopped already', async () => {
    const a = new WorkQueue(5);
    const { host } = hostOf([a], () => false);
    expect(await handOut(host, ids(2), ['a', 'a'])).toBe(0);
    expect(a.queued).toBe(0);
  });

  it('neither counts nor waits for a closed pool', async () => {
    const a = new WorkQueue(1);
    a.close();
    const { host } = hostOf([a]);
    expect(await handOut(host, ids(2), ['a', 'a'])).toBe(0);
  });
});
