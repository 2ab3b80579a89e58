import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FatesStore, openStore, Status } from '@fate/core';
import type { WorkerMessage } from './demo-worker.js';
import { firstOrderStep } from './order-steps.js';
import { Progress } from './progress.js';

const WORKER = fileURLToPath(new URL('./demo-worker.js', import.meta.url));

export interface DemoOptions {
  /** Store URL; default: a fresh SQLite file in ./.fate-demo. */
  readonly store?: string;
  readonly orders?: number;
  readonly processes?: number;
}

interface Tally {
  completed: number;
  failed: number;
}

/**
 * The main job: worker processes share one store, the demo seeds orders (every tenth
 * fails at shipping and is undone), kills one worker mid-way with SIGKILL and reports
 * who did what, how long recovery took and the throughput.
 */
export async function runDemo(options: DemoOptions = {}): Promise<void> {
  const orders = options.orders ?? 1_000;
  const processes = options.processes ?? 3;
  let url = options.store;
  if (!url) {
    const dir = resolve('.fate-demo');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    url = `sqlite:${join(dir, 'fate.db')}`;
  }
  const progress = new Progress();
  progress.line(
    `fate demo: ${orders} orders, ${processes} worker processes × 8 workers, store ${url}`,
  );
  const store = await openStore(url);
  const tally = new Map<string, Tally>();
  const finished = new Set<string>();
  const children = new Map<string, ChildProcess>();
  let kill:
    | { instance: string; at: number; held: Set<string>; resumedAt?: number; by?: string }
    | undefined;

  const onMessage = (m: WorkerMessage) => {
    if (m.kind === 'finished') {
      finished.add(m.id);
      const t = tally.get(m.instance) ?? { completed: 0, failed: 0 };
      if (m.status === Status.SUCCESSFUL) t.completed++;
      else t.failed++;
      tally.set(m.instance, t);
    } else if (
      m.kind === 'step' &&
      kill &&
      !kill.resumedAt &&
      m.instance !== kill.instance &&
      kill.held.has(m.id)
    ) {
      kill.resumedAt = m.at;
      kill.by = m.instance;
    }
  };

  try {
    await Promise.all(
      Array.from({ length: processes }, (_, i) =>
        startWorker(url, `worker-${i + 1}`, onMessage, children),
      ),
    );
    const started = Date.now();
    await seedOrders(store, orders);
    progress.line(`  seeded ${orders} orders in ${Date.now() - started} ms`);

    while (finished.size < orders) {
      if (!kill && finished.size >= orders * 0.35)
        kill = await killBusiest(store, children, progress);
      const note = kill
        ? `(killed ${kill.instance}${kill.resumedAt ? `, recovered in ${kill.resumedAt - kill.at} ms` : ', recovering…'})`
        : '';
      progress.update(finished.size, orders, note);
      if (Date.now() - started > 120_000)
        throw new Error('the demo did not finish within 2 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const elapsed = (Date.now() - started) / 1000;
    progress.update(orders, orders, '');
    progress.end();
    await summarize(store, orders, tally, kill, elapsed);
  } finally {
    await stopWorkers(children);
    await store.close();
  }
}

async function seedOrders(store: FatesStore, orders: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < orders) {
        const order = next++;
        const step = firstOrderStep(order);
        await store.seed({ step: { type: step.type, state: step.state() }, opName: 'order' });
      }
    }),
  );
}

function startWorker(
  url: string,
  instance: string,
  onMessage: (m: WorkerMessage) => void,
  children: Map<string, ChildProcess>,
): Promise<void> {
  const child = fork(WORKER, [url, instance], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.set(instance, child);
  child.on('message', (m: WorkerMessage) => onMessage(m));
  return new Promise((resolveReady, reject) => {
    child.on('message', (m: WorkerMessage) => m.kind === 'ready' && resolveReady());
    child.once('exit', (code, signal) =>
      reject(new Error(`${instance} exited early (${code ?? signal})`)),
    );
  });
}

async function killBusiest(
  store: FatesStore,
  children: Map<string, ChildProcess>,
  progress: Progress,
) {
  const held = await store.reservations();
  const counts = new Map<string, number>();
  for (const r of held)
    counts.set(r.reservation.lockId, (counts.get(r.reservation.lockId) ?? 0) + 1);
  const [instance = 'worker-1'] = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  const ids = new Set(
    held.filter((r) => r.reservation.lockId === instance).map((r) => r.id as string),
  );
  children.get(instance)?.kill('SIGKILL');
  progress.line(`  SIGKILL ${instance} while it held ${ids.size} transactions`);
  return { instance, at: Date.now(), held: ids } as {
    instance: string;
    at: number;
    held: Set<string>;
    resumedAt?: number;
    by?: string;
  };
}

async function summarize(
  store: FatesStore,
  orders: number,
  tally: Map<string, Tally>,
  kill:
    | { instance: string; at: number; held: Set<string>; resumedAt?: number; by?: string }
    | undefined,
  elapsed: number,
): Promise<void> {
  const ok = await store.list({ statuses: [Status.SUCCESSFUL] });
  const failed = await store.list({ statuses: [Status.FAILED] });
  const undone = failed.filter((f) => f.stackDepth === 0).length;
  console.log('');
  console.log('  instance     completed  failed+undone');
  for (const [instance, t] of [...tally.entries()].sort()) {
    const mark = instance === kill?.instance ? '  (killed)' : '';
    console.log(
      `  ${instance.padEnd(11)} ${String(t.completed).padStart(10)} ${String(t.failed).padStart(14)}${mark}`,
    );
  }
  console.log('');
  console.log(
    `  in the store: ${ok.length} SUCCESSFUL, ${failed.length} FAILED (${undone} fully undone), ${orders - ok.length - failed.length} other`,
  );
  if (kill) {
    const recovery = kill.resumedAt
      ? `${kill.resumedAt - kill.at} ms (resumed on ${kill.by})`
      : 'not observed';
    console.log(
      `  recovery after SIGKILL of ${kill.instance}: ${recovery}; it held ${kill.held.size} transactions`,
    );
  }
  console.log(
    `  throughput: ${orders} transactions in ${elapsed.toFixed(1)} s = ${(orders / elapsed).toFixed(0)} tx/s`,
  );
}

async function stopWorkers(children: Map<string, ChildProcess>): Promise<void> {
  await Promise.all(
    [...children.values()].map(
      (c) =>
        new Promise<void>((done) => {
          if (c.exitCode !== null || c.signalCode !== null) return done();
          const force = setTimeout(() => c.kill('SIGKILL'), 15_000);
          c.once('exit', () => {
            clearTimeout(force);
            done();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}
