import { randomBytes } from 'node:crypto';
import type { NewRecord, StoredRecord } from '../contract/backend.js';
import { checkPriority } from '../contract/priority.js';
import type { SeedRequest, SeedResult, TxInfo } from '../contract/types.js';
import { invalidArgument } from '../errors.js';
import { type FateId, keyedFateId, newFateId } from '../ids.js';
import { Status } from '../status.js';
import type { BackendCaller } from './backend-caller.js';
import { checkStep, decodeInfo, decodeStack, encodeJson } from './codec.js';
import { checkPayloadSize } from './payload-size.js';
import { seedDeferMs } from './seed-deferral.js';

/** Inserts a NEW record under a fresh random id. */
export async function createNew(backend: BackendCaller, record: NewRecord): Promise<FateId> {
  for (;;) {
    const id = newFateId();
    // a random id cannot exist before us: a repeat that finds it found our own insert
    const insert = backend.retriedTelling('create', (b) => b.insert(id, record));
    const inserted = await insert.answer;
    if (inserted || insert.repeated) return id;
  }
}

/**
 * `FatesStore.seedMany`: checks and encodes every request (stamped with the store's clock),
 * refuses any over the payload limit before anything is sent, then inserts them.
 */
export function seedMany(
  backend: BackendCaller,
  requests: readonly SeedRequest[],
  now: () => number,
  maxRecordBytes: number,
): Promise<SeedResult[]> {
  if (!Array.isArray(requests)) throw invalidArgument('seedMany needs an array of requests');
  const at = now();
  const seeds = requests.map((r) => prepareSeed(r, at));
  for (const s of seeds) checkPayloadSize(s.id, s.record.stack, s.record.info, maxRecordBytes);
  return insertSeeds(backend, seeds);
}

/**
 * Inserts prepared seeds (one round trip for one, `insertMany` for more), asking again
 * while the reply is lost; an id found taken on a repeat is judged by `insertedByUs`.
 */
export async function insertSeeds(
  backend: BackendCaller,
  seeds: readonly PreparedSeed[],
): Promise<SeedResult[]> {
  const [first] = seeds;
  if (!first) return [];
  const insert = backend.retriedTelling('seed', (b) =>
    seeds.length === 1
      ? b.insert(first.id, first.record).then((ok) => [ok])
      : b.insertMany(seeds.map((s) => ({ id: s.id, record: s.record }))),
  );
  const inserted = await insert.answer;
  const repeated = insert.repeated;
  return Promise.all(
    seeds.map(async (s, i) => {
      if (inserted[i] || !repeated) return { id: s.id, created: inserted[i] === true };
      // taken when we asked again: by our own first attempt, whose reply was lost?
      const stored = await backend.retried('seed', (b) => b.read(s.id));
      return { id: s.id, created: insertedByUs(s, stored) };
    }),
  );
}

/** A seed request checked and encoded: the record to insert and where. */
export interface PreparedSeed {
  readonly id: FateId;
  readonly record: NewRecord;
  /** Keyed ids can exist before us; random ones cannot (a v4 UUID does not collide). */
  readonly keyed: boolean;
  readonly created: number;
  /** A keyed seed's `info.seedToken`. */
  readonly token?: string;
}

/** Validates a request (programmer mistakes are `FATE_INVALID_ARGUMENT`) and encodes it. */
export function prepareSeed(request: SeedRequest, now: number): PreparedSeed {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw invalidArgument(`seed needs a request object, got ${describe(request)}`);
  }
  const step = checkStep(request.step);
  if (typeof request.opName !== 'string' || request.opName === '') {
    throw invalidArgument('seed needs a non-empty opName');
  }
  if (request.opName.includes('\u0000')) {
    // kept beside the runnable index as text, where some stores (PostgreSQL) refuse NUL
    throw invalidArgument('an opName may not contain NUL (U+0000)');
  }
  if (request.autoClean !== undefined && typeof request.autoClean !== 'boolean') {
    throw invalidArgument('autoClean must be a boolean');
  }
  const { retainMs } = request;
  if (retainMs !== undefined && (!Number.isSafeInteger(retainMs) || retainMs < 0)) {
    throw invalidArgument('retainMs must be an integer >= 0');
  }
  if (request.held !== undefined && typeof request.held !== 'boolean') {
    throw invalidArgument('held must be a boolean');
  }
  const deferMs = seedDeferMs(request, now);
  const priority = checkPriority(request.priority);
  const id = request.key === undefined ? newFateId() : keyedFateId(request.key);
  const token = request.key === undefined ? undefined : randomBytes(8).toString('hex');
  const info: TxInfo = {
    opName: request.opName,
    created: now,
    ...(request.autoClean ? { autoClean: true } : {}),
    ...(retainMs !== undefined ? { retainMs } : {}),
    ...(request.key ? { key: { type: request.key.type, key: request.key.key } } : {}),
    ...(token ? { seedToken: token } : {}),
    ...(request.internal !== undefined ? { internal: request.internal } : {}),
  };
  return {
    id,
    keyed: request.key !== undefined,
    created: now,
    ...(token ? { token } : {}),
    record: {
      status: request.held ? Status.NEW : Status.SUBMITTED,
      stack: encodeJson('stack', [step]),
      info: encodeJson('info', info),
      op: request.opName,
      ...(deferMs > 0 ? { deferMs } : {}),
      ...(priority !== 0 ? { priority } : {}),
    },
  };
}

/** A new, empty NEW record. */
export function newRecord(now: number): NewRecord {
  return { status: Status.NEW, stack: '[]', info: encodeJson('info', { created: now }), op: '' };
}

/**
 * After a repeated insert found the id taken: was it our own first attempt, whose reply
 * was lost? A random id can only be ours. A keyed one is ours when what is stored carries
 * our seed token; one stored without a token (by a version before tokens) is judged ours
 * when it was created at the very millisecond we stamped with the very first step we sent
 * (its status and later steps may have moved on since) — which two seeds of one key in one
 * millisecond both passed, and were both told `created` (the simulation found it).
 */
export function insertedByUs(seed: PreparedSeed, stored: StoredRecord | undefined): boolean {
  if (!seed.keyed) return true;
  if (!stored) return false;
  try {
    const info = decodeInfo(seed.id, stored.info);
    if (info.seedToken !== undefined) return info.seedToken === seed.token;
    const first = JSON.stringify(decodeStack(seed.id, stored.stack)[0]);
    return info.created === seed.created && `[${first}]` === seed.record.stack;
  } catch {
    return false;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : typeof value;
}
