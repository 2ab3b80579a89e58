import {
  DEFAULT_STORE_URL,
  FateError,
  FateErrorCode,
  type FateId,
  type FateStore,
  type FatesStore,
  type FateView,
  isFateError,
  isFateId,
  openStore,
  Status,
} from '@fate/core';
import { usageError } from '../cli-error.js';
import { type Command, type CommandArgs, stringValue } from '../command.js';
import { adminReserve } from './holders.js';

interface AdminBase {
  readonly name: string;
  /** Usage after `fate <name> [ID]`; `[--store URL]` is added. */
  readonly usage?: string;
  readonly summary: string;
  readonly options?: Command['options'];
  /** Checks the arguments before the store is opened (a usage error must not need a store). */
  check?(args: CommandArgs): void;
}

/** An admin command: it runs against the store of `--store`, else $FATE_STORE, else the default. */
export type AdminSpec = AdminBase &
  (
    | { readonly id: true; run(store: FatesStore, args: CommandArgs, id: FateId): Promise<string> }
    | { readonly id?: false; run(store: FatesStore, args: CommandArgs): Promise<string> }
  );

/** An admin command; `spec.run` is what it does on an open store (the console calls it too). */
export interface AdminCommand extends Command {
  readonly spec: AdminSpec;
}

/** A `Command` that opens the store, runs `spec` and closes the store again. */
export function adminCommand(spec: AdminSpec): AdminCommand {
  const usage = [spec.name, spec.id ? 'ID' : '', spec.usage ?? '', '[--store URL]'];
  return {
    spec,
    name: spec.name,
    usage: usage.filter(Boolean).join(' '),
    summary: spec.summary,
    options: { ...spec.options, store: { type: 'string' } },
    positionals: spec.id ? ['ID'] : [],
    async run(args) {
      // the id is checked before anything is opened
      const id = spec.id ? fateIdArgument(args.positionals[0] ?? '') : undefined;
      spec.check?.(args);
      // an admin command never creates a store: a typo in the URL is "no such store"
      const store = await openStore(
        stringValue(args, 'store') ?? process.env.FATE_STORE ?? DEFAULT_STORE_URL,
        { create: false },
      );
      try {
        return spec.id ? await spec.run(store, args, id as FateId) : await spec.run(store, args);
      } finally {
        await store.close();
      }
    },
  };
}

/** A transaction id from the command line; upper case is accepted (ids are stored lower case). */
export function fateIdArgument(raw: string): FateId {
  const id = raw.toLowerCase();
  if (!isFateId(id)) {
    throw usageError(
      `not a transaction id: ${JSON.stringify(raw)} (a UUID, e.g. 0f8fad5b-d9cb-469f-a165-70867728950e)`,
    );
  }
  return id;
}

/**
 * Reads `id` for a command that needs it to exist: an absent id is `FATE_NOT_FOUND`, and a
 * record that cannot be decoded says how to remove it.
 */
export async function readExisting(store: FatesStore, id: FateId): Promise<FateView> {
  let view: FateView;
  try {
    view = await store.read(id);
  } catch (err) {
    if (!isFateError(err, FateErrorCode.CORRUPT_DATA)) throw err;
    throw new FateError(
      FateErrorCode.CORRUPT_DATA,
      `${err.message}; \`fate delete ${id} --force\` removes it`,
      { cause: err },
    );
  }
  if (view.status === Status.UNKNOWN)
    throw new FateError(FateErrorCode.NOT_FOUND, `no transaction ${id}`);
  return view;
}

/** Refuses `what` on `id` with `FATE_ILLEGAL_STATUS` unless `status` is one of `allowed`. */
export function requireStatus(
  id: FateId,
  status: Status,
  what: string,
  allowed: ReadonlySet<Status>,
  hint = '',
): void {
  if (!allowed.has(status)) {
    throw new FateError(
      FateErrorCode.ILLEGAL_STATUS,
      `cannot ${what} ${id}: it is ${status} (only ${[...allowed].join(', ')}${hint})`,
    );
  }
}

/**
 * Runs `change` on `id` reserved. The status is checked before waiting for the reservation,
 * so a forbidden change is refused at once, and again once reserved, as it may have moved.
 */
export async function changeReserved(
  store: FatesStore,
  id: FateId,
  what: string,
  allowed: ReadonlySet<Status>,
  change: (fate: FateStore) => Promise<void>,
  hint?: string,
  waitForMs?: number,
): Promise<void> {
  requireStatus(id, (await readExisting(store, id)).status, what, allowed, hint);
  const fate = await adminReserve(store, id, waitForMs);
  try {
    requireStatus(id, await fate.getStatus(), what, allowed, hint);
    await change(fate);
  } finally {
    if (fate.isReserved) await fate.unreserve();
  }
}
