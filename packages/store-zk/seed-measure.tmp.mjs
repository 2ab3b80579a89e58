// Temporary measurement (not committed): 1,000 seeds one at a time from 16 in flight, and
// through seedMany, on a private ZooKeeper.
import { randomUUID } from 'node:crypto';
import { openStore } from '@fate/core';
import { startZooKeeper } from '@fate/test-services';

const zk = await startZooKeeper();
const step = { type: 's', state: {} };
const rounds = Number(process.argv[2] ?? 3);
try {
  for (let round = 0; round < rounds; round++) {
    const store = await openStore(`${zk.url}/m-${randomUUID().slice(0, 8)}`);
    // warm-up
    await Promise.all(Array.from({ length: 50 }, () => store.seed({ step, opName: 'w' })));
    let next = 0;
    let t = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next++ < 1000) await store.seed({ step, opName: 'op' });
      }),
    );
    const single = performance.now() - t;
    t = performance.now();
    const cpu0 = process.cpuUsage();
    await store.seedMany(Array.from({ length: 1000 }, () => ({ step, opName: 'op' })));
    const many = performance.now() - t;
    const cpu = process.cpuUsage(cpu0);
    t = performance.now();
    const scan = await store.scanRunnable(undefined, { limit: 64 });
    const scanMs = performance.now() - t;
    console.log(
      JSON.stringify({
        round,
        singleMs: Math.round(single),
        seedManyMs: Math.round(many),
        scan64Ms: Math.round(scanMs),
        seedManyCpuMs: Math.round((cpu.user + cpu.system) / 1000),
        itemsRead: scan.itemsRead,
      }),
    );
    await store.close();
  }
} finally {
  await zk.stop();
}
