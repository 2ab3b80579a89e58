// Not part of `npm test`: `npm run test:mutants` runs it (see
// packages/conformance/src/mutants/README.md). Mutants of what the wrappers cannot reach:
// the Lua inside the Redis store's scripts. Each rewrites one piece of Lua source, in every
// script that contains it (a fragment such as the fence is shared), and the store suite on a
// real Redis must fail. FATE_MUTANTS picks some by name.
import { createHash } from 'node:crypto';
import type { BackendMutant } from '@fate/conformance/mutants';
import { runMutantConformance } from '@fate/conformance/mutants';
import { REDIS_SCRIPTS } from '@fate/store-redis/internal';
import { startRedis } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { it } from 'vitest';
import { redisFixture } from './redis-fixture.js';

interface LuaMutation {
  readonly name: string;
  readonly promise: number;
  readonly breaks: string;
  /** Lua source as written in the store (exactly), and what replaces it. */
  readonly from: string;
  readonly to: string;
}

const MUTATIONS: readonly LuaMutation[] = [
  {
    name: 'lua-fence-lock-only',
    promise: 16,
    breaks: 'the fence compares the lock id and not the uuid',
    from: 'return r[1] == lock and r[2] == uuid, r\nend',
    to: 'return r[1] == lock, r\nend',
  },
  {
    name: 'lua-reserve-steals',
    promise: 23,
    breaks: 'tryReserve takes a record another reservation holds',
    from: "if r[5] and (r[5] ~= lock or r[6] ~= uuid) then return 'held' end\n",
    to: '',
  },
  {
    name: 'lua-reserve-no-start',
    promise: 24,
    breaks: 'tryReserve with start leaves SUBMITTED as it is',
    from: "if A[4] == '1' and r[1] == 'SUBMITTED' then",
    to: 'if false then',
  },
  {
    name: 'lua-insert-overwrites',
    promise: 19,
    breaks: 'insert replaces an existing record',
    from: "if redis.call('EXISTS', TX) == 1 then return 0 end\n",
    to: '',
  },
  {
    name: 'lua-release-not-rescheduled',
    promise: 14,
    breaks: 'a released record is not put back among the runnable',
    from: '    enqueue(id, status, defer_until, op, r[5])\n',
    to: '',
  },
  {
    name: 'lua-release-ignores-defer',
    promise: 6,
    breaks: "release stores no deferral: the write's deferMs is dropped",
    from: "    if defer > 0 then defer_until = string.format('%.0f', math.ceil(server_now() + defer)) end\n",
    to: '',
  },
  {
    name: 'lua-clear-not-rescheduled',
    promise: 26,
    breaks: 'a cleared reservation leaves the record out of the runnable',
    from: "release(id, lock, uuid)\nlocal r = redis.call('HMGET', TX, 'status', 'defer_until', 'op', 'priority')\nenqueue(id, r[1], r[2] or '0', r[3], r[4]) -- held until now: in no runnable or deferred set\n",
    to: 'release(id, lock, uuid)\n',
  },
  {
    name: 'lua-release-keeps-hold',
    promise: 28,
    breaks: 'ending a reservation leaves it in the reservation index',
    from: "  redis.call('HDEL', TX, 'res_lock', 'res_uuid')\n  unhold(id, lock, uuid)\n",
    to: "  redis.call('HDEL', TX, 'res_lock', 'res_uuid')\n",
  },
  {
    name: 'lua-status-not-indexed',
    promise: 27,
    breaks: "a write's new status is stored but the status index keeps the old one",
    from: "    index_status(id, status or '', A[5])\n",
    to: '',
  },
  // Not here: the claim dropping its check that the record a runnable entry names is
  // unreserved ('elseif r[5] or not RUNNABLE' -> 'elseif not RUNNABLE'). It survived the
  // store suite, rightly: the indexes' invariants keep a reserved record out of every
  // runnable set, and no client can make such an entry. redis-indexes.test.ts makes one
  // behind the store's back ("never claims a reserved record a stray runnable entry names"),
  // which fails on that rewrite.
  {
    name: 'lua-claim-no-start',
    promise: 24,
    breaks: 'a claim leaves SUBMITTED records SUBMITTED',
    from: "          if r[1] == 'SUBMITTED' then\n            index_status(id, r[1], 'IN_PROGRESS')",
    to: "          if false then\n            index_status(id, r[1], 'IN_PROGRESS')",
  },
  {
    name: 'lua-age-off-deletes-reserved',
    promise: 8,
    breaks: 'age-off deletes a finished record someone holds',
    from: "if (r[1] == 'SUCCESSFUL' or r[1] == 'FAILED') and not r[3] then",
    to: "if (r[1] == 'SUCCESSFUL' or r[1] == 'FAILED') then",
  },
  {
    name: 'lua-insert-no-publish',
    promise: 33,
    breaks: 'a SUBMITTED insert publishes no wake-up',
    from: "if status == 'SUBMITTED' then redis.call('PUBLISH', ARGV[6], id) end\n",
    to: '',
  },
  {
    name: 'lua-delete-uncounted',
    promise: 27,
    breaks: 'a deleted record stays in the counts',
    from: "    recount(status or '', false, op)\n    redis.call('DEL', TX)",
    to: "    redis.call('DEL', TX)",
  },
];

const ORIGINAL = new Map(REDIS_SCRIPTS.map((script) => [script, script.lua]));

/** Puts every script's source back, then applies `mutation` (none: the store as shipped). */
function rewrite(mutation?: LuaMutation): void {
  let changed = 0;
  for (const [script, lua] of ORIGINAL) {
    const next = mutation ? lua.split(mutation.from).join(mutation.to) : lua;
    if (next !== lua) changed++;
    const sha = createHash('sha1').update(next).digest('hex');
    Object.assign(script as { lua: string; sha: string }, { lua: next, sha });
  }
  if (mutation && changed === 0) throw new Error(`${mutation.name}: its Lua is in no script`);
}

// every mutation must match now, not silently mutate nothing later
for (const m of MUTATIONS) rewrite(m);
rewrite();

const luaMutants: BackendMutant[] = MUTATIONS.map((m) => ({
  name: m.name,
  promise: m.promise,
  breaks: m.breaks,
  needs: 'the Redis store (rewrites its Lua)',
  // mutants run one after another: each client of this one loads the rewritten scripts
  wrap: (backend) => {
    rewrite(m);
    return backend;
  },
}));

const redis = useService(() => startRedis());
const chosen = process.env.FATE_MUTANTS?.split(',').filter(Boolean);
const only = chosen?.filter((name) => luaMutants.some((m) => m.name === name));
if (!chosen?.length || only?.length) {
  runMutantConformance(
    { name: 'redis', factory: async () => redisFixture((await redis()).url) },
    luaMutants,
    { ...(only?.length ? { only } : {}), bail: process.env.FATE_MUTANTS_ALL !== '1' },
  );
} else {
  it.skip('no Redis Lua mutant was chosen', () => undefined);
}
