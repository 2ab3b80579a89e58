import { newFateId, openStore } from '@fate/core';
import { startZooKeeperEnsemble, type ZooKeeperEnsemble } from '@fate/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '@fate/store-zk';

// One server of three hangs: its port takes connections and nothing answers them (a JVM
// stuck in a pause, a stalled disk). The other two are a quorum and serve. The C client
// tries the servers one at a time in a random order and waits most of a session timeout on
// the hung one before it tries the next, so a third of new clients land on it first; with
// the default session timeout (10 s) that took longer than the old 5 s connect timeout, and
// 4 to 6 clients of 20 failed to open while two servers served.
let ensemble: ZooKeeperEnsemble;

beforeAll(async () => {
  ensemble = await startZooKeeperEnsemble();
});

afterAll(async () => {
  await ensemble?.stop();
});

it('opens every new client at the default timeouts while one of three servers hangs', async () => {
  const leader = await ensemble.leader();
  const hung = ensemble.servers.find((s) => s.id !== leader)?.id as number;
  const thaw = ensemble.freeze(hung);
  try {
    // Twelve at once: the chance that none tries the hung server first is (2/3)^12, < 1%.
    const opened = await Promise.allSettled(
      Array.from({ length: 12 }, async (_, i) => {
        const store = await openStore(`${ensemble.url}/fate-hung-${i}`);
        try {
          return (await store.read(newFateId())).status;
        } finally {
          await store.close();
        }
      }),
    );
    const failed = opened.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    expect(failed).toEqual([]);
  } finally {
    thaw();
  }
}, 60_000);
