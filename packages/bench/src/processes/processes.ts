import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stopProcesses } from '@fate/conformance/harness';
import type { PoolOptions } from '@fate/core';
import { withTimeout } from '../measurements/stats.js';

// Engine processes for the benchmarks that kill or time whole processes: forked like the
// engine conformance suite's children (a message once started), each a Fate instance of
// bench-process.ts with the default liveness settings.

const BENCH_PROCESS = fileURLToPath(new URL('./bench-process.js', import.meta.url));

/** What one engine process runs; given to bench-process.ts as JSON. */
export interface BenchProcessOptions {
  /** Workers in one pool (default 4), unless `pools` is given. */
  readonly workers?: number;
  readonly pools?: readonly PoolOptions[];
  /**
   * Append `start|end <instance> <id> <n> <epoch ms>` for each step to this file, written
   * synchronously (a SIGKILL loses nothing logged; the engine suite's log format). Without
   * it, each step's start goes to the parent over IPC.
   */
  readonly log?: string;
  /** Open the store, but start the engine only on the parent's `go` (a timed start). */
  readonly startOnGo?: boolean;
  /**
   * No message per step (the backlog counts from the report and the store): an IPC write
   * per step would be charged to the engine's CPU and load the parent besides.
   */
  readonly silent?: boolean;
}

export type ProcessMessage =
  | { readonly kind: 'ready'; readonly instance: string }
  /** `at`: `wallNow()` in the child, comparable with the parent's on one host. */
  | { readonly kind: 'step'; readonly instance: string; readonly id: string; readonly at: number }
  | {
      readonly kind: 'report';
      readonly instance: string;
      /** CPU time (user + system) of the process since `go`, µs. */
      readonly cpuUs: number;
      /** Transactions this engine finished, and when the last one did (`wallNow()`). */
      readonly finished: number;
      readonly lastFinishedAt: number;
    };

export type ParentMessage = { readonly kind: 'go' } | { readonly kind: 'report' };

type Report = Extract<ProcessMessage, { kind: 'report' }>;

/** The engine processes of one measurement: started, killed and stopped by instance id. */
export class BenchProcesses {
  readonly #url: string;
  readonly #onMessage: (m: ProcessMessage) => void;
  readonly #script: string;
  readonly #children = new Map<string, ChildProcess>();
  readonly #ready = new Set<string>();

  /**
   * `script`: the process to fork (default: a fate engine); it is given `url`, the instance
   * id and the options as JSON, and speaks the messages above.
   */
  constructor(
    url: string,
    onMessage: (m: ProcessMessage) => void = () => undefined,
    script: string = BENCH_PROCESS,
  ) {
    this.#url = url;
    this.#onMessage = onMessage;
    this.#script = script;
  }

  /** Forks an engine process named `instance`; resolves once it is ready (30 s at most). */
  start(instance: string, options: BenchProcessOptions = {}): Promise<void> {
    const args = [this.#url, instance, JSON.stringify(options)];
    const child = fork(this.#script, args, {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      execArgv: process.env.FATE_BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.FATE_BENCH_CPU_PROF}`]
        : [],
    });
    this.#children.set(instance, child);
    child.on('message', (m: ProcessMessage) => this.#onMessage(m));
    child.once('exit', () => this.#ready.delete(instance));
    const ready = new Promise<void>((resolve, reject) => {
      child.on('message', (m: ProcessMessage) => m.kind === 'ready' && resolve());
      child.once('exit', (code, signal) =>
        reject(new Error(`${instance} exited early (${code ?? signal})`)),
      );
    });
    return withTimeout(ready, 30_000, `${instance} starting`).then(() => {
      this.#ready.add(instance);
    });
  }

  /** Instance ids of the processes that are ready and not killed. */
  live(): string[] {
    return [...this.#ready];
  }

  /** SIGKILL; resolves once the process is gone. */
  async kill(instance: string): Promise<void> {
    const child = this.#children.get(instance);
    this.#ready.delete(instance);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await withTimeout(exited, 10_000, `${instance} exiting after SIGKILL`);
  }

  send(message: ParentMessage): void {
    for (const instance of this.#ready) this.#children.get(instance)?.send(message);
  }

  /**
   * Every ready process's report (CPU since `go`, transactions finished), each within
   * `timeoutMs`: a process whose loop does not yield while it has work answers late.
   */
  reports(timeoutMs = 10_000): Promise<Report[]> {
    return Promise.all(
      this.live().map((instance) => {
        const child = this.#children.get(instance) as ChildProcess;
        const answer = new Promise<Report>((resolve) => {
          const listen = (m: ProcessMessage) => {
            if (m.kind !== 'report') return;
            child.off('message', listen);
            resolve(m);
          };
          child.on('message', listen);
        });
        child.send({ kind: 'report' } satisfies ParentMessage);
        return withTimeout(answer, timeoutMs, `a report from ${instance}`);
      }),
    );
  }

  /** SIGTERM, then SIGKILL after `graceMs`: no engine process outlives the measurement. */
  stop(graceMs = 5_000): Promise<void> {
    this.#ready.clear();
    return stopProcesses([...this.#children.values()], graceMs);
  }
}
