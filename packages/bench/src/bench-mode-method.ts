import type { BenchConfig, Mode } from './bench-config.js';
import { fmt } from './bench-table.js';

// What each mode measures and how, in the words docs/benchmarks.md shows above its tables.

const TITLES: Record<Mode, string> = {
  default: 'Benchmarks',
  storm: 'Crash storm (`--mode storm`, issue 10)',
  backlog: 'Backlog and latency across processes (`--mode backlog`, issue 17)',
  pools: 'Worker pools (`--mode pools`, issue 15)',
  roundtrips: 'Store round trips (`--mode roundtrips`, issue 17)',
  peers: 'fate beside the job queues (`--mode peers`)',
};

export const modeTitle = (mode: Mode): string => TITLES[mode];

/** Markdown bullets, each wrapped at `width` columns (continuation lines indented by two). */
export function wrapBullets(bullets: readonly string[], width = 100): string[] {
  const out: string[] = [];
  for (const bullet of bullets) {
    let line = '-';
    for (const word of bullet.split(/\s+/)) {
      if (line.length + 1 + word.length > width && line !== '-') {
        out.push(line);
        line = ' ';
      }
      line += ` ${word}`;
    }
    out.push(line);
  }
  return out;
}

export function modeMethod(c: BenchConfig): string[] {
  return wrapBullets(bullets(c));
}

const DEFAULTS =
  'each a `Fate` with the default liveness settings: timeout 3,000 ms, heartbeat and ' +
  'dead-holder check every 750 ms; forked the way the engine conformance suite forks its ' +
  'children';

function bullets(c: BenchConfig): string[] {
  switch (c.mode) {
    case 'default':
    case 'peers':
      return [];
    case 'storm':
      return [
        `3 engine processes × 8 workers (${DEFAULTS}) run ${fmt(c.stormTxs)} transactions of 3 steps ` +
          '(10–30 ms each, drawn per transaction), seeded with `seedMany` while they run. From ' +
          `then on, every ${fmt(c.stormKillEveryMs)} ms a random process is SIGKILLed and a new one started at ` +
          `once, ${c.stormKills} times. Every process appends each step's start and end to one log ` +
          'with `appendFileSync` (wall clock), so a SIGKILL loses nothing it logged.',
        "_Victims_: the killed process's reservations, listed right after it died (they stay " +
          'until its liveness lapses). _Kill-to-resume_: from the SIGKILL until a victim begins ' +
          'a step in another process; p50 and max over all victims of all kills. A kill of a ' +
          'process holding nothing has no victims.',
        '_Lost_: transactions not SUCCESSFUL in the store once it has nothing runnable or ' +
          'reserved (120 s at most). _Steps run twice_: step runs beyond one per step (a step ' +
          'the kill cut short runs again). _Overlaps_: two runs of one step of a transaction in ' +
          "two processes overlapping in time, a killed process's runs ending at its kill. " +
          '_Work done after_: from the end of seeding to the last step.',
        'Targets (issue 10): max ≤ 5 s on SQLite and Redis, ≤ 6 s on ZooKeeper. _Max before_: ' +
          'what issue 10 measured before its work (2,000 transactions).',
      ];
    case 'backlog':
      return [
        `**Backlog.** ${fmt(c.backlogTxs)} one-step no-op transactions (ZooKeeper: ${fmt(c.backlogZkTxs)}: it drains ` +
          'about 600 a second, so 20,000 would take the 6 runs over 4 minutes) are seeded ' +
          'first with `seedMany`, untimed; then P worker ' +
          `processes × W workers (${DEFAULTS}) are told \`go\` together, and the clock runs ` +
          "from `go` to the last 'finished' event (each process stamps its own, on the one " +
          "host's wall clock). The store then confirms every transaction SUCCESSFUL. A fresh " +
          `store and fresh processes every run; each figure is the median of ${c.backlogRepeats} runs.`,
        '_Worker CPU_: `process.cpuUsage()` (user + system) of the worker processes from `go` ' +
          'to the end, summed, per transaction. _Server CPU_: `used_cpu_sys + used_cpu_user` ' +
          "of Redis's `INFO cpu` over the same span (other servers: not measured).",
        '**Latency from another process.** One idle engine process (4 workers, default ' +
          'finder backoff); this process seeds one no-op transaction at a time through its ' +
          `own client, ${c.latencySamples} samples ${c.latencySpacingMs[0]}–${c.latencySpacingMs[1]} ms apart: from just before ` +
          "`seed` until the step's `call` begins in the child, both stamped on the wall clock " +
          'with sub-millisecond resolution (`performance.timeOrigin + performance.now()`). ' +
          "Without wake-ups (SQLite) the figure is the finder's poll backoff (25 ms, ×1.5 + 25 " +
          'ms, up to 1 s) and depends on the spacing: 10–30 ms apart gives about 11 ms.',
        '_Before_ and _a simple queue_: the figures issue 17 reports from before its work, ' +
          'measured on this machine (how its latency samples were spaced it does not say); ' +
          '_target_: what it asks for. _tx/s of each run_ shows how much runs vary.',
      ];
    case 'pools':
      return [
        'One engine in this process, with pools `[{ name: "slow", ops: ["slow"], workers: 2 }, ' +
          '{ name: "fast", workers: 8 }]` or with one pool of 10 workers. First nothing or ' +
          `${fmt(c.poolsSlow)} transactions of op \`slow\` (one 500 ms step) are seeded (\`seedMany\`); once ` +
          `they run, ${fmt(c.poolsFast)} no-op transactions of op \`fast\` are seeded through \`fate.seed\`, ` +
          'one every 20–40 ms whether or not the earlier ones finished. Each is timed from ' +
          "just before its seed to its 'finished' event.",
      ];
    case 'roundtrips':
      return [
        "The backend is wrapped in the conformance suite's `FaultyBackend`, injecting nothing: " +
          'it counts every call by operation. A _call_ is one backend operation: one statement ' +
          'or transaction on SQLite and PostgreSQL (after an insert PostgreSQL also sends a ' +
          '`pg_notify`, at most one in flight), one command or Lua script on Redis; on ' +
          'ZooKeeper one call can be several requests.',
        `${fmt(c.roundTripTxs)} no-op transactions of 1 and of 5 steps are seeded one at a time (\`seed\`, ` +
          '16 in flight) through that client, then one engine of 16 workers on it drains them; ' +
          'every call from the first seed to the last finish, divided by the transactions. ' +
          "_Own_: the transaction's own calls (insert, tryReserve, write, read, " +
          'clearReservation); the rest (scans, heartbeats, liveness listings) are shared.',
        '_Server_: what the server handled per transaction over the same span, on a server ' +
          "of the benchmark's own: Redis commands (`total_commands_processed`, those run inside " +
          'scripts included), ZooKeeper requests (`Received` of `stat`, pings included).',
      ];
  }
}
