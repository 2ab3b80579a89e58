// Not part of `npm test`: `npm run test:mutants` runs it (see
// packages/conformance/src/mutants/README.md). Mutants of what the wrappers cannot reach:
// the ZooKeeper store's index upkeep (the runnable and reservation markers beside each
// record). Each replaces one method of an index class for every client, and the store
// suite on a real ZooKeeper, plus the check that an ending write drops its markers at
// once (zk-marker-check.ts), must fail. FATE_MUTANTS picks some by name.
import type { BackendMutant } from '@fate/conformance/mutants';
import { MutantShared, runMutantConformance } from '@fate/conformance/mutants';
import { parseZkUrl } from '@fate/store-zk';
import { ZkReservationIndex, ZkRunnableIndex } from '@fate/store-zk/internal';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { it } from 'vitest';
import { reusingZkFactory } from './zk-chroot-reuse.js';
import { rawClient } from './zk-fixture.js';
import { checkEndingWritesDropMarkers } from './zk-marker-check.js';

type Proto = Record<string, unknown>;
interface IndexMutation {
  readonly name: string;
  readonly promise: number;
  readonly breaks: string;
  readonly proto: Proto;
  readonly method: string;
  readonly replacement: (...args: unknown[]) => Promise<unknown>;
}

const runnable = ZkRunnableIndex.prototype as unknown as Proto;
const reserved = ZkReservationIndex.prototype as unknown as Proto;
const done = async () => undefined;

const MUTATIONS: readonly IndexMutation[] = [
  {
    name: 'zk-runnable-touch-skipped',
    promise: 14,
    breaks: 'a record made runnable again (released, cleared) gets no runnable marker',
    proto: runnable,
    method: 'touch',
    replacement: done,
  },
  {
    name: 'zk-runnable-create-skipped',
    promise: 14,
    breaks: "an insert's runnable marker is never created, though 'ok' is answered",
    proto: runnable,
    method: 'create',
    replacement: async () => 'ok',
  },
  {
    name: 'zk-runnable-remove-skipped',
    promise: 14,
    breaks: 'a record that stops being runnable keeps its runnable marker',
    proto: runnable,
    method: 'remove',
    replacement: done,
  },
  {
    name: 'zk-reserved-touch-skipped',
    promise: 28,
    breaks: 'a reservation taken after a failed fast create gets no reservation marker',
    proto: reserved,
    method: 'touch',
    replacement: done,
  },
  {
    name: 'zk-reserved-create-skipped',
    promise: 28,
    breaks: "a new reservation's marker is never created, though 'ok' is answered",
    proto: reserved,
    method: 'create',
    replacement: async () => 'ok',
  },
  {
    name: 'zk-reserved-remove-skipped',
    promise: 28,
    breaks: 'an ended reservation keeps its reservation marker',
    proto: reserved,
    method: 'remove',
    replacement: done,
  },
];

const ORIGINAL = new Map(MUTATIONS.map((m) => [`${m.name}`, m.proto[m.method]]));

/** Puts every method back, then applies `mutation` (none: the store as shipped). */
function apply(mutation?: IndexMutation): void {
  for (const m of MUTATIONS) {
    if (typeof ORIGINAL.get(m.name) !== 'function') throw new Error(`${m.name}: no ${m.method}`);
    m.proto[m.method] = ORIGINAL.get(m.name);
  }
  if (mutation) mutation.proto[mutation.method] = mutation.replacement;
}
apply();

const indexMutants: BackendMutant[] = MUTATIONS.map((m) => ({
  name: m.name,
  promise: m.promise,
  breaks: m.breaks,
  needs: 'the ZooKeeper store (replaces an index method)',
  // mutants run one after another: every client of this one uses the replaced method
  wrap: (backend) => {
    apply(m);
    return backend;
  },
}));

const zookeeper = useService(() => startZooKeeper());
const chosen = process.env.FATE_MUTANTS?.split(',').filter(Boolean);
const only = chosen?.filter((name) => indexMutants.some((m) => m.name === name));
if (!chosen?.length || only?.length) {
  runMutantConformance({ name: 'zookeeper', factory: reusingZkFactory(zookeeper) }, indexMutants, {
    ...(only?.length ? { only } : {}),
    bail: process.env.FATE_MUTANTS_ALL !== '1',
    additions: (target, mutant) => {
      it('zookeeper: an ending write drops its runnable and reservation markers at once', async () => {
        const fixture = await target.factory();
        const backend = mutant.wrap(fixture.backend(), new MutantShared());
        const raw = await rawClient((await zookeeper()).url);
        try {
          await backend.open();
          const { chroot } = parseZkUrl(fixture.url ?? '');
          if (!chroot) throw new Error(`no chroot in ${fixture.url}`);
          await checkEndingWritesDropMarkers(backend, raw, chroot);
        } finally {
          raw.close();
          await backend.close();
          await fixture.destroy();
        }
      });
    },
  });
} else {
  it.skip('no ZooKeeper index mutant was chosen', () => undefined);
}
