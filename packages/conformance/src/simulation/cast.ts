import {
  createFatesStore,
  Fate,
  type FatesStore,
  type StoreBackend,
  type StoredRecord,
} from '@fate/core';
import type { FaultSchedule } from './faults.js';
import type { History } from './history.js';
import { SimProcess } from './process.js';
import type { EngineSpec } from './scenario.js';
import { SimBackend } from './sim-backend.js';
import { type SimEnv, simStepType } from './steps.js';

const silent = { error() {}, warn() {}, info() {}, debug() {} };

/** What every client of one world shares. */
export interface Stage {
  readonly history: History;
  readonly faults: FaultSchedule;
  readonly livenessTimeoutMs: number;
  readonly retentionMs: number;
  readonly ageOffCheckMs: number;
  /** The scenario's cluster-wide concurrency limit on op `b`, if any. */
  readonly limitB?: number;
  /** A fresh, unopened backend client on the world's one store. */
  backend(): StoreBackend;
  readonly atomic: boolean;
  judgeDelete(id: string, before: StoredRecord | undefined, client: string): string | undefined;
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
    atomic: stage.atomic,
    judgeDelete: (id, before, client) => stage.judgeDelete(id, before, client),
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

  /** Starts a new incarnation (the previous one must be down). */
  async start(): Promise<void> {
    if (this.state !== 'down') return;
    this.state = 'starting';
    const h = this.#stage.history;
    const process = new SimProcess(this.name);
    this.process = process;
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
        retentionMs: this.#stage.retentionMs,
        ageOffCheckMs: this.#stage.ageOffCheckMs,
        ...(this.#stage.limitB ? { limits: { b: { concurrency: this.#stage.limitB } } } : {}),
        logger: silent,
      });
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
