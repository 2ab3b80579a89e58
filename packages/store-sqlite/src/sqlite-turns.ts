/**
 * How long SQLite calls may run back to back without letting the event loop turn, ms.
 * better-sqlite3 answers synchronously, so its promises resolve as microtasks: a worker
 * or work finder that keeps calling never yields to timers or I/O, unlike on a networked
 * store. Heartbeats would then stop, the engine's own lease lapse and its workers refuse
 * work that the finder offers again at once: a livelock that only ends when the backlog
 * does (seen with 3 engines × 8 workers on 500 transactions).
 */
const TURN_MS = 5;

/** When the event loop last turned for one of our calls (shared: one loop per process). */
let turnedAt = performance.now();

/**
 * Lets the event loop run timers and I/O (`setImmediate`) when calls have run back to
 * back for `TURN_MS`; otherwise returns at once, so a single call costs nothing extra.
 */
export async function takeTurn(): Promise<void> {
  if (performance.now() - turnedAt < TURN_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  turnedAt = performance.now();
}
