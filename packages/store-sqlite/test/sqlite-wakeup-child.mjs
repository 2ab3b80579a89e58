// A second process for sqlite-wakeups.test.ts (forked with an IPC channel). It opens the
// store at FATE_FILE and answers the parent's messages:
//   { subscribe: true } → subscribes; replies { subscribed: true }, then { woken: n } per wake-up
//   { seed: n }         → seeds n transactions (one seedMany); replies { seeded: ids }
import { createSqliteStore } from '@fate/store-sqlite';

const store = await createSqliteStore({ path: process.env.FATE_FILE });
let woken = 0;

process.on('message', async (message) => {
  if (message.subscribe) {
    await store.onWakeup(() => process.connected && process.send({ woken: ++woken }));
    process.send({ subscribed: true });
  } else if (message.seed) {
    const seeds = Array.from({ length: message.seed }, () => ({
      step: { type: 's', state: {} },
      opName: 'op',
    }));
    const results = await store.seedMany(seeds);
    process.send({ seeded: results.map((r) => r.id) });
  }
});
// The parent ends this process by closing the channel.
process.on('disconnect', () => store.close());
process.send({ ready: true });
