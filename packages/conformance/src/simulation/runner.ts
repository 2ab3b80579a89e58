import { coreAdmin } from './admin.js';
import { EngineSlot, type Stage } from './cast.js';
import { checkChildren } from './children.js';
import { SimClients } from './clients.js';
import { FaultSchedule } from './faults.js';
import { type FinalState, readFinal, settled } from './final-state.js';
import { History } from './history.js';
import { checkHistory } from './invariants.js';
import { checkLimit } from './limits.js';
import { checkStarvation } from './priorities.js';
import { SimProcess } from './process.js';
import { checkRunAt } from './run-at.js';
import { type Command, SCENARIO_MS, type Scenario } from './scenario.js';
import { checkSchedule } from './schedules.js';
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
  readonly #pending = new Set<Promise<unknown>>();
  /** The store's clock when the run began. */
  readonly #startEpoch = Date.now();
  readonly #clients: SimClients;
  readonly #start: number;
  /** The plain client's and the admin's processes. */
  readonly #quiet: SimProcess[] = [];

  constructor(sc: Scenario, target: SimTarget, ns: string, world: World | undefined) {
    this.#sc = sc;
    this.#target = target;
    this.#ns = ns;
    this.#world = world;
    this.#start = performance.now();
    this.#history = new History(this.#start);
    this.#stage = {
      history: this.#history,
      faults: new FaultSchedule(sc.faults),
      livenessTimeoutMs: sc.livenessTimeoutMs,
      retentionMs: sc.retentionMs,
      ageOffCheckMs: sc.ageOffCheckMs,
      ...(sc.limitB ? { limitB: sc.limitB } : {}),
      ...(sc.perSecondB ? { perSecondB: sc.perSecondB } : {}),
      ...(sc.schedule ? { schedule: sc.schedule } : {}),
      ...(sc.batches ? { batches: true } : {}),
      backend: () => target.backend(ns),
      atomic: target.atomic ?? virtual(target),
      judgeDelete: (id, before, client, ageOff) =>
        this.#clients.judgeDelete(id, before, client, ageOff),
      opened: [],
    };
    this.#clients = new SimClients(this.#history, this.#stage, target.admin ?? coreAdmin);
    this.#slots = sc.engines.map((spec, i) => new EngineSlot(`e${i}`, spec, this.#stage));
  }

  async go(): Promise<SimResult> {
    const h = this.#history;
    const quiet = new SimProcess('client');
    const admin = new SimProcess('admin');
    this.#quiet.push(quiet, admin);
    const opened = this.#clients.open(quiet, admin);
    this.#bg(opened);
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
    const windowMs = this.#target.scenarioMs ?? SCENARIO_MS;
    const dueBy = this.#sc.schedule ? this.#startEpoch + windowMs : undefined;
    let final = await this.#final();
    while (h.now() < deadline) {
      for (const slot of this.#slots) if (slot.state === 'down') this.#bg(slot.start());
      if (this.#pending.size === 0 && settled(final, dueBy)) break;
      await this.#wait(250);
      final = await this.#final();
    }
    const { records } = final;
    const leaseMs = this.#sc.livenessTimeoutMs - Math.floor(this.#sc.livenessTimeoutMs / 4) / 2;
    const violations = [
      ...h.events.flatMap((e) => (e.e === 'violation' ? [`at ${e.t} ms: ${e.text}`] : [])),
      ...checkHistory(h.events, records, { leaseMs, clockSlackMs: this.#world ? 0 : 250 }),
      ...(this.#sc.limitB
        ? checkLimit(h.events, { leaseMs, limit: this.#sc.limitB, op: 'b' })
        : []),
      ...(this.#sc.starvation ? checkStarvation(h.events) : []),
      ...checkRunAt(h.events, this.#world ? 0 : 250),
      ...(this.#sc.schedule
        ? checkSchedule(h.events, this.#sc.schedule, {
            startEpoch: this.#startEpoch,
            windowMs,
            slackMs: this.#world ? 0 : 250,
          })
        : []),
      ...checkChildren(h.events, this.#clients.parents, records, {
        boundMs: 4 * this.#sc.livenessTimeoutMs + (this.#world ? 2_000 : 5_000),
      }),
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
        this.#bg(this.#clients.seed(cmd));
        return;
      case 'admin': {
        const seeded = this.#clients.seeded;
        const target = seeded[cmd.target % Math.max(1, seeded.length)];
        if (target) this.#bg(this.#clients.adminOp(cmd.op, target.id));
        return;
      }
      case 'ageOff':
        this.#bg(this.#clients.ageOff(cmd.retentionMs));
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

  #final(): Promise<FinalState> {
    return readFinal(this.#target.backend(this.#ns));
  }
}

function virtual(target: SimTarget): boolean {
  return target.virtual ?? true;
}
