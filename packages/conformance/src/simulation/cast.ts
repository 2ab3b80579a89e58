import { createFatesStore, Fate, type FatesStore, type StoreBackend } from '@fate/core';
import type { FaultSchedule } from './faults.js';
import type { History } from './history.js';
import { SimProcess } from './process.js';
import type { EngineSpec, ScheduleSpec } from './scenario.js';
import { SimBackend } from './sim-backend.js';
import type { SimDeletesOptions } from './sim-deletes.js';
import { firstStep, type SimEnv, simStepType } from './steps.js';

/** The name (and op) of a scenario's schedule. */
export const SCHEDULE_NAME = 'tick';
/** The simulated schedule's `maxCatchUp`: one judgement seeds at most this many due times. */
export const SCHEDULE_MAX_CATCH_UP = 10;

const silent = { error() {}, warn() {}, info() {}, debug() {} };

/** What every client of one world shares (`atomic` and `judgeDelete` as `SimDeletes` takes them). */
export interface Stage extends Pick<SimDeletesOptions, 'atomic' | 'judgeDelete'> {
  readonly history: History;
  readonly faults: FaultSchedule;
  readonly livenessTimeoutMs: number;
  readonly retentionMs: number;
  readonly ageOffCheckMs: number;
  /** The scenario's cluster-wide concurrency limit on op `b`, if any. */
  readonly limitB?: number;
  /** The scenario's cluster-wide rate limit on op `b` (starts per second), if any. */
  readonly perSecondB?: number;
  /** The scenario's schedule, registered by every engine, if any. */
  readonly schedule?: ScheduleSpec;
  /** The scenario's `batches`: calls of one kind and instant share a fault. */
  readonly batches?: boolean;
  /** A fresh, unopened backend client on the world's one store. */
  backend(): StoreBackend;
  /** Every backend client opened in this world (closed when it ends, if real). */
  readonly opened: StoreBackend[];
}

/** Opens a store client for process `process`, through its own SimBackend. */
export function openClient(
  stage: Stage,
  process: SimProcess,
  instanceId: string,
): Promise<FatesStore> {
  const inner = stage.backend();
  stage.opened.push(inner);
  const backend = new SimBackend(inner, {
    process,
    client: instanceId,
    history: stage.history,
    faults: stage.faults,
    hangMs: Math.round(stage.livenessTimeoutMs * 1.5),
    ...(stage.batches ? { batches: true } : {}),
    atomic: stage.atomic,
    judgeDelete: (id, before, client, ageOff) => stage.judgeDelete(id, before, client, ageOff),
  });
  return createFatesStore(backend, { instanceId, livenessTimeoutMs: stage.livenessTimeoutMs });
}

/**
 * One engine slot of a world: an instance id whose process can crash, pause, shut down
 * and restart; each restart is a new process and a new incarnation (lock id).
 */
export class EngineSlot {
  readonly name: string;
  readonly #spec: EngineSpec;
  readonly #stage: Stage;
  process: SimProcess;
  state: 'down' | 'starting' | 'running' | 'stopping' = 'down';
  #fate: Fate<SimEnv> | undefined;

  constructor(name: string, spec: EngineSpec, stage: Stage) {
    this.name = name;
    this.#spec = spec;
    this.#stage = stage;
    this.process = new SimProcess(name);
  }

  /**
   * Starts a new incarnation (the previous one must be down); resolves once it runs, or
   * once it crashed (a start cut short by a crash never ends by itself).
   */
  async start(): Promise<void> {
    if (this.state !== 'down') return;
    this.state = 'starting';
    const process = new SimProcess(this.name);
    this.process = process;
    await Promise.race([this.#boot(process), process.died]);
  }

  async #boot(process: SimProcess): Promise<void> {
    const h = this.#stage.history;
    try {
      const store = await openClient(this.#stage, process, this.name);
      const env: SimEnv = { process, history: h, lockId: () => store.lockId, deferred: new Set() };
      const s = this.#spec;
      const fate = new Fate<SimEnv>({
        store,
        env,
        steps: [simStepType],
        ...(s.layout === 'one'
          ? { workers: s.workers }
          : {
              pools: [
                { name: 'slow', ops: ['b'], workers: 1 },
                { name: 'default', workers: s.workers },
              ],
            }),
        scanner: s.scanner,
        // off by default in engines; the simulation keeps it on unless the engine's spec says
        // otherwise, so the fault plans reach it
        claimOnFinish: s.claimOnFinish ?? true,
        retentionMs: this.#stage.retentionMs,
        ageOffCheckMs: this.#stage.ageOffCheckMs,
        ...limitsOf(this.#stage),
        logger: silent,
      });
      const sch = this.#stage.schedule;
      if (sch) {
        fate.schedule(SCHEDULE_NAME, `*/${sch.everyS} * * * * *`, () => firstStep(sch.steps), {
          catchUp: sch.catchUp,
          // more than a window's due times; the default (100) has croner walk back 101 due
          // times at every judgement (~16 ms each here), which would dominate the run's cost
          maxCatchUp: SCHEDULE_MAX_CATCH_UP,
          retainMs: sch.retainMs,
        });
      }
      this.#fate = fate;
      h.add({ t: h.now(), e: 'process', name: this.name, what: 'start', lockId: store.lockId });
      await fate.start();
      if (this.process === process && !process.dead) this.state = 'running';
    } catch {
      // the store was away while starting: this incarnation is as good as crashed
      process.crash();
      if (this.process === process) this.state = 'down';
    }
  }

  crash(): void {
    if (this.state === 'down') return;
    const h = this.#stage.history;
    h.add({ t: h.now(), e: 'process', name: this.name, what: 'crash' });
    this.process.crash();
    this.state = 'down';
  }

  shutdown(timeoutMs: number | undefined): void {
    const fate = this.#fate;
    if (this.state !== 'running' || !fate) return;
    this.state = 'stopping';
    const h = this.#stage.history;
    const process = this.process;
    h.add({ t: h.now(), e: 'process', name: this.name, what: `shutdown(${timeoutMs ?? ''})` });
    void fate
      .shutdown(timeoutMs)
      .catch(() => undefined)
      .finally(() => {
        if (this.process !== process || process.dead) return;
        h.add({ t: h.now(), e: 'process', name: this.name, what: 'stopped' });
        process.crash(); // the process exits
        this.state = 'down';
      });
  }
}

/** The engines' `limits` option: op `b`'s concurrency and/or rate, as the scenario sets them. */
function limitsOf(stage: Stage): { limits?: { b: { concurrency?: number; perSecond?: number } } } {
  if (!stage.limitB && !stage.perSecondB) return {};
  return {
    limits: {
      b: {
        ...(stage.limitB ? { concurrency: stage.limitB } : {}),
        ...(stage.perSecondB ? { perSecond: stage.perSecondB } : {}),
      },
    },
  };
}
