// Opens a Redis store from the URL in argv[2] and, if it opened, subscribes to wake-ups (a
// second connection) and closes it; then lets the event loop drain. Prints one JSON line: the outcome and how long the process stayed alive after.
import { createRedisStore } from '@fate/store-redis';

let outcome;
try {
  const store = await createRedisStore(process.argv[2]);
  await store.onWakeup(() => undefined);
  await store.close();
  outcome = { opened: true };
} catch (err) {
  outcome = { opened: false, code: err.code, message: err.message };
}
const settled = performance.now();
process.on('exit', () => {
  process.stdout.write(
    `${JSON.stringify({ ...outcome, lingerMs: performance.now() - settled })}\n`,
  );
});
