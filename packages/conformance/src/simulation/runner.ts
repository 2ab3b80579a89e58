import {
  Fate,
  type FateId,
  type FatesStore,
  FINISHED_STATUSES,
  type Status,
  type StoredRecord,
} from '@fate/core';
import { type AdminOps, coreAdmin } from './admin.js';
import { EngineSlot, openClient, type Stage } from './cast.js';
import { FaultSchedule } from './faults.js';
import { History } from './history.js';
import { checkHistory, type FinalRecord, retryOf } from './invariants.js';
import { checkLimit } from './limits.js';
import { SimProcess } from './process.js';
import { type Command, SCENARIO_MS, type Scenario } from './scenario.js';
import { firstStep, type SimEnv } from './steps.js';
import { memoryTarget, type SimResult, type SimTarget } from './target.js';

import { enterWorld, type World } from './world.js';

export { memoryTarget, type SimResult, type SimTarget };

/** How long the quiet end may take before what is unfinished counts as stuck (virtual ms). */
const QUIET_MAX_MS = 120_000;
let worlds = 0;

/** Runs one scenario to its quiet end and checks every invariant. */
export async function runScenario(
  sc: Scenario,
  target: SimTarget = memoryTarget,
): Promise<SimResult> {
  const virtual = target.virtual ?? true;
  const world: World | undefined = virtual ? enterWorld(sc.salt) : undefined;
  const namespace = `sim${sc.salt.toString(36)}w${++worlds}`;
  try {
    return await new Run(sc, target, namespace, world).go();
  } finally {
    world?.leave();
    await target.drop?.(namespace);
  }
}

class Run {
  readonly #sc: Scenario;
  readonly #target: SimTarget;
  readonly #ns: string;
  readonly #world: World | undefined;
  readonly #history: History;
  readonly #stage: Stage;
  readonly #slots: EngineSlot[];
  readonly #seeded: Array<{ id: FateId; key?: string }> = [];
  /** Admin deletes in flight, per id. */
  readonly #deleting = new Map<string, number>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #admin: AdminOps;
  #client: Fate<SimEnv> | undefined;
  #adminStore: FatesStore | undefined;
  readonly #start: number;
  /** Resolves once the plain client and the admin client are open (commands wait for it). */
  #opened: Promise<void> = Promise.resolve();
  /** The plain client's and the admin's processes. */
  readonly #quiet: SimProcess[] = [];

  constructor(sc: Scenario, target: SimTarget, ns: string, world: World | undefined) {
    this.#sc = sc;
    this.#target = target;
    this.#ns = ns;
    this.#world = world;
    this.#start = performance.now();
    this.#history = new History(this.#start);
    this.#admin = target.admin ?? coreAdmin;
    this.#stage = {
      history: this.#history,
      faults: new FaultSchedule(sc.faults),
      livenessTimeoutMs: sc.livenessTimeoutMs,
      retentionMs: sc.retentionMs,
      ageOffCheckMs: sc.ageOffCheckMs,
      ...(sc.limitB ? { limitB: sc.limitB } : {}),
      backend: () => target.backend(ns),
      atomic: target.atomic ?? virtual(target),
      judgeDelete: (id, before, client) => this.#judgeDelete(id, before, client),
      opened: [],
    };
    this.#slots = sc.engines.map((spec, i) => new EngineSlot(`e${i}`, spec, this.#stage));
  }

  async go(): Promise<SimResult> {
    const h = this.#history;
    const quiet = new SimProcess('client');
    const admin = new SimProcess('admin');
    this.#quiet.push(quiet, admin);
    this.#opened = (async () => {
      const store = await openClient(this.#stage, quiet, 'client');
      this.#client = new Fate<SimEnv>({
        store,
        env: undefined as never,
        steps: [
          {
            type: 'sim',
            fromState: () => {
              throw new Error('a client runs nothing');
            },
          },
        ],
      });
      this.#adminStore = await openClient(this.#stage, admin, 'admin');
      await this.#adminStore.registerInstance().catch(() => undefined);
    })();
    this.#bg(this.#opened);
    for (const slot of this.#slots) this.#bg(slot.start());
    for (const cmd of this.#sc.commands) {
      await this.#until(cmd.at);
      this.#do(cmd);
    }
    await this.#until(this.#target.scenarioMs ?? SCENARIO_MS);
    // the quiet end: no more faults, pauses or stalls; every engine up again
    this.#stage.faults.off();
    h.add({ t: h.now(), e: 'process', name: 'world', what: 'quiet' });
    for (const slot of this.#slots) slot.process.heal();
    const deadline = h.now() + (this.#target.quietMaxMs ?? QUIET_MAX_MS);
    let records = await this.#records();
    while (h.now() < deadline) {
      for (const slot of this.#slots) if (slot.state === 'down') this.#bg(slot.start());
      if (
        this.#pending.size === 0 &&
        records.every((r) => FINISHED_STATUSES.has(r.status as Status))
      )
        break;
      await this.#wait(250);
      records = await this.#records();
    }
    const leaseMs = this.#sc.livenessTimeoutMs - Math.floor(this.#sc.livenessTimeoutMs / 4) / 2;
    const violations = [
      ...h.events.flatMap((e) => (e.e === 'violation' ? [`at ${e.t} ms: ${e.text}`] : [])),
      ...checkHistory(h.events, records, { leaseMs, clockSlackMs: this.#world ? 0 : 250 }),
      ...(this.#sc.limitB
        ? checkLimit(h.events, { leaseMs, limit: this.#sc.limitB, op: 'b' })
        : []),
    ];
    const ms = h.now();
    // the world ends: every process stops where it is (nothing of it runs again)
    for (const slot of this.#slots) slot.crash();
    for (const p of this.#quiet) p.crash();
    // let what was in flight run into the crashed processes' gates, inside this world
    await this.#wait(this.#world ? 2 * this.#sc.livenessTimeoutMs : 100);
    if (!this.#world) {
      // real clients hold connections: close them all (what hangs is left behind)
      const closing = this.#stage.opened.map((b) => b.close().catch(() => undefined));
      await Promise.race([Promise.all(closing), new Promise((r) => setTimeout(r, 5_000))]);
    }
    return { violations, history: h, ms };
  }

  #do(cmd: Command): void {
    const h = this.#history;
    switch (cmd.kind) {
      case 'seed':
        this.#bg(this.#seed(cmd));
        return;
      case 'admin': {
        const target = this.#seeded[cmd.target % Math.max(1, this.#seeded.length)];
        if (target) this.#bg(this.#adminOp(cmd.op, target.id));
        return;
      }
      case 'ageOff':
        this.#bg(
          this.#opened.then(() => this.#adminStore?.ageOff({ retentionMs: cmd.retentionMs })),
        );
        return;
      case 'shutdown':
        this.#slot(cmd.engine)?.shutdown(cmd.timeoutMs);
        return;
      case 'crash':
        this.#slot(cmd.engine)?.crash();
        return;
      case 'restart': {
        const slot = this.#slot(cmd.engine);
        if (!slot || slot.state === 'stopping' || slot.state === 'starting') return;
        slot.crash();
        this.#bg(slot.start());
        return;
      }
      case 'pause':
      case 'stall': {
        const slot = this.#slot(cmd.engine);
        if (slot?.state !== 'running') return;
        h.add({ t: h.now(), e: 'process', name: slot.name, what: `${cmd.kind}(${cmd.ms})` });
        if (cmd.kind === 'pause') slot.process.pause(cmd.ms);
        else slot.process.stallHeartbeats(cmd.ms);
        return;
      }
    }
  }

  async #seed(cmd: Extract<Command, { kind: 'seed' }>): Promise<void> {
    await this.#opened;
    const client = this.#client;
    if (!client) return;
    const h = this.#history;
    const items = cmd.txs.map((tx) => ({
      step: firstStep(tx.steps),
      opName: tx.op,
      ...(tx.key ? { key: { type: 'sim', key: tx.key } } : {}),
      ...(tx.autoClean && !tx.key ? { autoClean: true } : {}),
      ...(tx.delayMs ? { delayMs: tx.delayMs } : {}),
    }));
    const results = cmd.many
      ? await client.seedMany(items)
      : await items.reduce<Promise<Array<{ id: FateId; created: boolean }>>>(
          async (acc, item) => [...(await acc), await client.seed(item.step, item)],
          Promise.resolve([]),
        );
    results.forEach((r, i) => {
      const key = cmd.txs[i]?.key;
      h.add({
        t: h.now(),
        e: 'seed',
        id: r.id,
        created: r.created,
        client: 'client',
        op: cmd.txs[i]?.op ?? '',
        ...(key ? { key } : {}),
      });
      if (r.created) this.#seeded.push({ id: r.id, ...(key ? { key } : {}) });
    });
  }

  async #adminOp(op: Extract<Command, { kind: 'admin' }>['op'], id: FateId): Promise<void> {
    await this.#opened;
    const store = this.#adminStore;
    if (!store) return;
    const h = this.#history;
    const deletes = op === 'delete' || op === 'forceDelete';
    if (deletes) this.#deleting.set(id, (this.#deleting.get(id) ?? 0) + 1);
    h.add({ t: h.now(), e: 'admin', op, id, end: false });
    let outcome = 'ok';
    try {
      await this.#admin[op](store, id);
    } catch (err) {
      outcome = (err as { code?: string }).code ?? (err as Error).name;
    } finally {
      h.add({ t: h.now(), e: 'admin', op, id, end: true, outcome });
      if (deletes) this.#deleting.set(id, (this.#deleting.get(id) ?? 1) - 1);
    }
  }

  #judgeDelete(id: string, before: StoredRecord | undefined, client: string): string | undefined {
    if (!before || FINISHED_STATUSES.has(before.status as Status)) return undefined;
    if (client === 'admin' && (this.#deleting.get(id) ?? 0) > 0) return undefined;
    if (client.startsWith('e') && before.info.includes('"autoClean":true')) return undefined;
    return `${client} deleted ${id} while it was ${before.status} (unfinished${client === 'admin' ? ', no admin delete in flight' : ''})`;
  }

  #slot(i: number): EngineSlot | undefined {
    return this.#slots[i % this.#slots.length];
  }

  #bg(p: Promise<unknown>): void {
    const tracked = p.catch(() => undefined).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  async #until(at: number): Promise<void> {
    const left = at - this.#history.now();
    if (left > 0) await this.#wait(left);
  }

  async #wait(ms: number): Promise<void> {
    if (this.#world) await this.#world.clock.tickAsync(ms);
    else await new Promise((r) => setTimeout(r, ms));
  }

  /** Every record the store holds now, read past every simulated fault. */
  async #records(): Promise<FinalRecord[]> {
    const raw = this.#target.backend(this.#ns);
    await raw.open();
    try {
      // the engine's own records (schedules, slots: op `fate:…`) stay NEW by design
      const own = (info: string) => info.includes('"opName":"fate:');
      return (await raw.list())
        .filter(({ record }) => !own(record.info))
        .map(({ id, record }) => ({
          id,
          status: record.status,
          holder: record.reservation?.lockId,
          defer: record.deferUntil,
          ...retryOf(record.info),
        }));
    } finally {
      await raw.close();
    }
  }
}

function virtual(target: SimTarget): boolean {
  return target.virtual ?? true;
}
