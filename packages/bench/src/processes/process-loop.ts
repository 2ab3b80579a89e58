import { wallNow } from '../measurements/stats.js';
import type { BenchProcessOptions, ParentMessage, ProcessMessage } from './processes.js';

/** What a bench process runs (an engine, or a peer queue's consumers). */
export interface BenchSystem {
  start(): Promise<unknown>;
  /** Stops at once: the benchmark is over. */
  stop(): Promise<unknown>;
}

/** The work a bench process finished: how much, and when the last one did (wall clock). */
export class FinishedCount {
  count = 0;
  lastAt = 0;

  finished(): void {
    this.count++;
    this.lastAt = wallNow();
  }
}

/**
 * The child side of the parent's messages (processes.ts): starts `system` at once or on
 * `go`, answers `report` with the CPU used since `go` and `finished`, says `ready`, and
 * stops `system` then exits on SIGTERM or when the parent goes away.
 */
export async function serveBenchProcess(
  instance: string,
  options: BenchProcessOptions,
  system: BenchSystem,
  finished: FinishedCount,
): Promise<void> {
  const send = (m: ProcessMessage) => process.send?.(m);
  let cpuAtGo = process.cpuUsage();
  const start = () =>
    system.start().catch((error: unknown) => {
      process.stderr.write(`${instance}: cannot start: ${String(error)}\n`);
      process.exit(1);
    });
  process.on('message', (m: ParentMessage) => {
    if (m.kind === 'go') {
      cpuAtGo = process.cpuUsage();
      void start();
    } else if (m.kind === 'report') {
      const cpu = process.cpuUsage(cpuAtGo);
      send({
        kind: 'report',
        instance,
        cpuUs: cpu.user + cpu.system,
        finished: finished.count,
        lastFinishedAt: finished.lastAt,
      });
    }
  });
  if (!options.startOnGo) await start();
  send({ kind: 'ready', instance });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void system
      .stop()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}
