// A store client in its own process, for zk-dead-connection.test.ts: after one answered
// read it asks the parent to reset its connection, then (still before the event loop polls
// again) sends reads on the dead socket, and finally reads once more on a new session.
// Prints `ok` and exits 0 when it survives; dies of SIGABRT when the binding's poll watcher
// is left armed on the socket the C client closed.
import { openStore } from '@fate/core';
import '@fate/store-zk';

const store = await openStore(process.argv[2]);
await store.list({ limit: 1 });
// This continuation runs inside the binding's I/O callback; its poll watcher is re-armed
// when the callback returns, and the immediate below runs before the next poll.
await new Promise((resolve) => {
  setImmediate(() => {
    process.send('reset');
    // the parent resets the connection meanwhile (a pause, not a timer: nothing may poll)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    const reads = Array.from({ length: 3 }, () => store.list({ limit: 1 }).catch(() => 'failed'));
    resolve(Promise.all(reads));
  });
});
await store.list({ limit: 1 });
await store.close();
console.log('ok');
process.exit(0);
