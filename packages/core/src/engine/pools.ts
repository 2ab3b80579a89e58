import { invalidArgument } from '../errors.js';
import { WorkQueue } from './work-queue.js';

/**
 * One named pool of workers for a set of op names, so long operations never starve short
 * ones: `{ name: 'slow', ops: ['migrate'], workers: 2 }`. Without `ops` it is the
 * catch-all: every op no other pool of this engine names.
 */
export interface PoolOptions {
  readonly name: string;
  readonly ops?: readonly string[];
  readonly workers: number;
}

/** One pool at run time: its queue and how it is doing. */
export interface Pool {
  readonly name: string;
  /** The ops it runs; undefined for the catch-all. */
  readonly ops: ReadonlySet<string> | undefined;
  readonly workers: number;
  readonly queue: WorkQueue;
}

/** How busy a pool is now. */
export interface PoolStats {
  readonly name: string;
  readonly workers: number;
  readonly busy: number;
  readonly idle: number;
  readonly queued: number;
}

/** The membership group of engines that run every op. */
export const ALL_OPS = '*';

/**
 * An engine's pools and the route from an op to its pool. Every op maps to exactly one
 * pool: named ops to the pool naming them, the rest to the catch-all. An engine without a
 * catch-all runs only the ops its pools name, and must say so (`onlyPooledOps`): a pool
 * layout that silently leaves ops to no pool would strand their transactions.
 */
export class Pools {
  readonly all: readonly Pool[];
  readonly #byOp = new Map<string, Pool>();
  readonly #catchAll: Pool | undefined;

  constructor(specs: readonly PoolOptions[], onlyPooledOps: boolean) {
    if (!Array.isArray(specs) || specs.length === 0) {
      throw invalidArgument('pools must be a non-empty array of { name, ops?, workers }');
    }
    const names = new Set<string>();
    this.all = specs.map((spec) => {
      if (typeof spec?.name !== 'string' || spec.name === '' || names.has(spec.name)) {
        throw invalidArgument(
          `every pool needs a unique, non-empty name (got ${String(spec?.name)})`,
        );
      }
      names.add(spec.name);
      if (!Number.isInteger(spec.workers) || spec.workers <= 0) {
        throw invalidArgument(`pool ${spec.name}: workers must be a positive integer`);
      }
      if (spec.ops !== undefined) {
        if (!Array.isArray(spec.ops) || spec.ops.length === 0) {
          throw invalidArgument(
            `pool ${spec.name} takes no op: give it ops, or leave ops out for the catch-all`,
          );
        }
        for (const op of spec.ops) {
          if (typeof op !== 'string' || op === '') {
            throw invalidArgument(`pool ${spec.name}: op names are non-empty strings`);
          }
        }
      }
      return {
        name: spec.name,
        ops: spec.ops ? new Set(spec.ops) : undefined,
        workers: spec.workers,
        queue: new WorkQueue(spec.workers),
      };
    });
    const catchAlls = this.all.filter((p) => !p.ops);
    if (catchAlls.length > 1) {
      throw invalidArgument(
        `only one pool may be the catch-all (no ops): ${catchAlls.map((p) => p.name).join(', ')}`,
      );
    }
    this.#catchAll = catchAlls[0];
    for (const pool of this.all) {
      for (const op of pool.ops ?? []) {
        const other = this.#byOp.get(op);
        if (other)
          throw invalidArgument(`op ${op} is in two pools: ${other.name} and ${pool.name}`);
        this.#byOp.set(op, pool);
      }
    }
    if (!this.#catchAll && !onlyPooledOps) {
      throw invalidArgument(
        `pools ${this.all.map((p) => p.name).join(', ')} leave every op other than ${[...this.#byOp.keys()].join(', ')} to no pool: add a catch-all pool (one without ops), or set onlyPooledOps: true if this engine runs only those ops`,
      );
    }
    if (this.#catchAll && onlyPooledOps) {
      throw invalidArgument('onlyPooledOps is for engines without a catch-all pool');
    }
  }

  /** The pool that runs `op` here, or undefined when this engine does not run it. */
  route(op: string): Pool | undefined {
    return this.#byOp.get(op) ?? this.#catchAll;
  }

  /**
   * The membership group: engines that run the same ops split the id space between them,
   * so every op some live engine runs is scanned over the whole id space by its group.
   */
  get group(): string {
    return this.#catchAll ? ALL_OPS : JSON.stringify([...this.#byOp.keys()].sort());
  }

  stats(): PoolStats[] {
    return this.all.map((p) => ({
      name: p.name,
      workers: p.workers,
      busy: p.queue.running,
      idle: p.queue.idle,
      queued: p.queue.queued,
    }));
  }

  close(): void {
    for (const p of this.all) p.queue.close();
  }
}

/** Marks the group of hash-partitioned engines (range is the default and unmarked). */
const HASH_GROUP = 'hash:';

/**
 * An engine's membership group: its op set, and how it cuts the id space. Engines split
 * the id space only with peers that cut it the same way: a range engine and a hash engine
 * counted as peers would each take "their half" by a different rule, and the ids in
 * neither half would never run.
 */
export function membershipGroup(ops: string, strategy: 'range' | 'hash'): string {
  return strategy === 'hash' ? `${HASH_GROUP}${ops}` : ops;
}

/** True when some engine group in `groups` runs `op`. */
export function groupsRun(groups: readonly string[], op: string): boolean {
  return groups.some((group) => {
    const g = group.startsWith(HASH_GROUP) ? group.slice(HASH_GROUP.length) : group;
    if (g === ALL_OPS) return true;
    try {
      const ops: unknown = JSON.parse(g);
      return Array.isArray(ops) && ops.includes(op);
    } catch {
      return true; // a group this version does not know: it may run anything
    }
  });
}
