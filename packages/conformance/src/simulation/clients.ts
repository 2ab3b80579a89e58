import {
  Fate,
  type FateId,
  type FatesStore,
  FINISHED_STATUSES,
  type Status,
  type StoredRecord,
} from '@fate/core';
import type { AdminOps } from './admin.js';
import { openClient, type Stage } from './cast.js';
import { parentStep } from './children.js';
import type { History } from './history.js';
import type { SimProcess } from './process.js';
import type { ChildrenSpec, Command } from './scenario.js';
import { firstStep, type SimEnv } from './steps.js';

/**
 * A run's two clients besides the engines: the plain client that seeds and the admin
 * (cancel, fail, delete, age-off), and the judging of deletes against admin deletes in flight.
 */
export class SimClients {
  /** What was seeded and created, in order (admin commands pick their target from it). */
  readonly seeded: Array<{ id: FateId; key?: string }> = [];
  /** The parents seeded and created, with their children. */
  readonly parents = new Map<string, ChildrenSpec>();
  /** The store's clock when the run began (this client's view of it). */
  readonly #epoch = Date.now();
  /** Admin deletes in flight, per id. */
  readonly #deleting = new Map<string, number>();
  /** Admin operations begun, numbering their events. */
  #adminOps = 0;
  readonly #history: History;
  readonly #stage: Stage;
  readonly #admin: AdminOps;
  #client: Fate<SimEnv> | undefined;
  #adminStore: FatesStore | undefined;
  /** Resolves once the plain client and the admin client are open (commands wait for it). */
  #opened: Promise<void> = Promise.resolve();

  constructor(history: History, stage: Stage, admin: AdminOps) {
    this.#history = history;
    this.#stage = stage;
    this.#admin = admin;
  }

  /** Opens both clients in their processes; resolves once both are open. */
  open(quiet: SimProcess, admin: SimProcess): Promise<void> {
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
    return this.#opened;
  }

  ageOff(retentionMs: number): Promise<unknown> {
    return this.#opened.then(() => this.#adminStore?.ageOff({ retentionMs }));
  }

  async seed(cmd: Extract<Command, { kind: 'seed' }>): Promise<void> {
    await this.#opened;
    const client = this.#client;
    if (!client) return;
    const h = this.#history;
    const items = cmd.txs.map((tx) => ({
      step: tx.children ? parentStep(tx.children, tx.steps) : firstStep(tx.steps),
      opName: tx.op,
      ...(tx.key ? { key: { type: 'sim', key: tx.key } } : {}),
      ...(tx.autoClean && !tx.key ? { autoClean: true } : {}),
      ...(tx.delayMs ? { delayMs: tx.delayMs } : {}),
      ...(tx.runAt !== undefined ? { runAt: this.#epoch + tx.runAt } : {}),
      ...(tx.priority ? { priority: tx.priority } : {}),
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
        ...(cmd.txs[i]?.priority ? { priority: cmd.txs[i]?.priority } : {}),
        ...(cmd.txs[i]?.runAt !== undefined ? { runAt: cmd.txs[i]?.runAt } : {}),
      });
      if (r.created) this.seeded.push({ id: r.id, ...(key ? { key } : {}) });
      const children = cmd.txs[i]?.children;
      if (r.created && children) this.parents.set(r.id, children);
    });
  }

  async adminOp(op: Extract<Command, { kind: 'admin' }>['op'], id: FateId): Promise<void> {
    await this.#opened;
    const store = this.#adminStore;
    if (!store) return;
    const h = this.#history;
    const deletes = op === 'delete' || op === 'forceDelete';
    if (deletes) this.#deleting.set(id, (this.#deleting.get(id) ?? 0) + 1);
    const n = ++this.#adminOps;
    h.add({ t: h.now(), e: 'admin', op, id, n, end: false });
    let outcome = 'ok';
    try {
      await this.#admin[op](store, id);
    } catch (err) {
      outcome = (err as { code?: string }).code ?? (err as Error).name;
    } finally {
      h.add({ t: h.now(), e: 'admin', op, id, n, end: true, outcome });
      if (deletes) this.#deleting.set(id, (this.#deleting.get(id) ?? 1) - 1);
    }
  }

  /** A delete's violation, or undefined; age-off (`deleteAgedOff`) is excused nothing unfinished. */
  judgeDelete(
    id: string,
    before: StoredRecord | undefined,
    client: string,
    ageOff = false,
  ): string | undefined {
    if (!before || FINISHED_STATUSES.has(before.status as Status)) return undefined;
    if (ageOff)
      return `${client}'s age-off (deleteAgedOff) deleted ${id} while it was ${before.status} (unfinished)`;
    if (client === 'admin' && (this.#deleting.get(id) ?? 0) > 0) return undefined;
    if (client.startsWith('e') && before.info.includes('"autoClean":true')) return undefined;
    return `${client} deleted ${id} while it was ${before.status} (unfinished${client === 'admin' ? ', no admin delete in flight' : ''})`;
  }
}
