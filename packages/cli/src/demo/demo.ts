import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  FateError,
  FateErrorCode,
  type FatesStore,
  instanceIdOf,
  openStore,
  redactStoreUrl,
  Status,
} from '@fate/core';
import { CliError, CliErrorCode } from '../cli-error.js';
import { type DemoOptions, demoNumber } from './demo-options.js';
import type { ProcessMessage } from './demo-process.js';
import { DemoProcesses } from './demo-processes.js';
import {
  adminHints,
  countOrders,
  type KillRecord,
  type OrderCounts,
  printReport,
  type Tally,
} from './demo-report.js';
import { firstOrderStep } from './order-steps.js';
import { Progress } from './progress.js';

export type { DemoOptions } from './demo-options.js';

/** Share of the orders finished when one process is killed. */
const KILL_AT = 0.35;

/**
 * The main job: engine processes share one store, the demo seeds orders (every tenth
 * fails at shipping and is undone), kills one process mid-way with SIGKILL and reports
 * who did what, how long recovery took and the throughput.
 *
 * Completion is counted in the store, never from the processes' messages: a process killed
 * just after finishing a transaction never reports it. The orders carry an op name unique
 * to the run, so a store that already holds earlier runs counts only this one.
 */
export async function runDemo(options: DemoOptions = {}): Promise<void> {
  const orders = demoNumber('orders', options.orders);
  const processes = demoNumber('processes', options.processes);
  const timeoutMs = demoNumber('timeout', options.timeoutSeconds) * 1_000;
  const url = options.store ?? freshSqliteStore();
  const opName = `order-${randomBytes(4).toString('hex')}`;
  const progress = new Progress();
  progress.line(
    `fate demo: ${orders} orders (op ${opName}), ${processes} processes × 8 workers, store ${redactStoreUrl(url)}`,
  );
  const store = await openStore(url);
  const tally = new Map<string, Tally>();
  let kill: KillRecord | undefined;
  let aFailedId: string | undefined;
  const children = new DemoProcesses(url, (m: ProcessMessage) => {
    if (m.kind === 'finished') {
      const t = tally.get(m.instance) ?? { completed: 0, failed: 0 };
      if (m.status === Status.SUCCESSFUL) t.completed++;
      else t.failed++;
      tally.set(m.instance, t);
    } else if (m.kind === 'step' && kill && !kill.resumedAt && m.instance !== kill.instance) {
      if (kill.held.has(m.id)) {
        kill.resumedAt = m.at;
        kill.by = m.instance;
      }
    }
  });

  try {
    await children.start(processes);
    const started = Date.now();
    await seedOrders(store, orders, opName);
    progress.line(`  seeded ${orders} orders in ${Date.now() - started} ms`);
    const counts = await waitForOrders(store, opName, orders, started + timeoutMs, children, {
      async onCount(done) {
        if (!kill && done >= orders * KILL_AT) kill = await killBusiest(store, children, progress);
        const note = kill
          ? `(killed ${kill.instance}${kill.resumedAt ? `, recovered in ${kill.resumedAt - kill.at} ms` : ', recovering…'})`
          : '';
        progress.update(done, orders, note);
      },
    });
    const elapsedS = (Date.now() - started) / 1_000;
    aFailedId = counts.aFailedId;
    progress.end();
    // the processes' last reports arrive while they shut down
    await children.stop();
    printReport({ orders, opName, counts, tally, kill, elapsedS });
  } finally {
    progress.end(); // a failure leaves the bar drawn
    await children.stop();
    await store.close();
    console.log('');
    for (const line of adminHints(
      options.adminCommand ?? 'fate',
      redactStoreUrl(url),
      opName,
      aFailedId,
    )) {
      console.log(line);
    }
  }
}

/** A fresh SQLite file in ./.fate-demo (the previous demo's is removed). */
function freshSqliteStore(): string {
  const dir = resolve('.fate-demo');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return `sqlite:${join(dir, 'fate.db')}`;
}

async function seedOrders(store: FatesStore, orders: number, opName: string): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < orders) {
        const step = firstOrderStep(next++);
        await store.seed({ step: { type: step.type, state: step.state() }, opName });
      }
    }),
  );
}

/**
 * Polls the store until every order of this run finished. Bounded: past `deadline`, or
 * when no demo process is left, it fails with what is missing.
 */
async function waitForOrders(
  store: FatesStore,
  opName: string,
  orders: number,
  deadline: number,
  children: DemoProcesses,
  { onCount }: { onCount(done: number): Promise<void> },
): Promise<OrderCounts> {
  for (;;) {
    const asked = Date.now();
    const counts = await countOrders(store, opName);
    const done = counts.successful + counts.failed;
    await onCount(done);
    if (done >= orders) return counts;
    const missing = `${orders - done} of ${orders} orders (op ${opName}) have not finished`;
    if (Date.now() >= deadline) {
      throw new FateError(
        FateErrorCode.TIMEOUT,
        `${missing} within the time allowed; give more with --timeout`,
      );
    }
    if (children.running === 0) {
      throw new CliError(
        CliErrorCode.DEMO_PROCESSES_FAILED,
        `${missing} and every demo process has exited`,
      );
    }
    // a full listing costs more on some stores (ZooKeeper reads every record): never poll
    // faster than twice the time one count took
    await sleep(Math.max(100, 2 * (Date.now() - asked)));
  }
}

/** SIGKILLs the process that holds the most transactions now. */
async function killBusiest(
  store: FatesStore,
  children: DemoProcesses,
  progress: Progress,
): Promise<KillRecord> {
  const held = await store.reservations();
  const counts = new Map<string, number>();
  // reservations name an incarnation (process-2@9f2c…); the demo knows its processes by name
  const holderOf = (r: (typeof held)[number]) => instanceIdOf(r.reservation.lockId);
  for (const r of held) counts.set(holderOf(r), (counts.get(holderOf(r)) ?? 0) + 1);
  // the busiest of this demo's processes (another client may hold work on a shared store)
  const [instance = children.names[0] ?? 'process-1'] = [...counts.entries()]
    .filter(([k]) => children.names.includes(k))
    .sort((a, b) => b[1] - a[1])
    .map(([k]) => k);
  const ids = new Set(held.filter((r) => holderOf(r) === instance).map((r) => r.id));
  children.kill(instance);
  progress.line(`  SIGKILL ${instance} while it held ${ids.size} transactions`);
  return { instance, at: Date.now(), held: ids };
}
