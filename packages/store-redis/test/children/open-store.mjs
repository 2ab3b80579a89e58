// Opens a Redis store from the URL in argv[2], closes it if it opened, then lets the event
// loop drain. Prints one JSON line: the outcome and how long the process stayed alive after.
import { createRedisStore } from '@fate/store-redis';

let outcome;
try {
  const store = await createRedisStore(process.argv[2]);
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
