import { startUi, type UiServer } from '@fate/cli';
import { openClient, type StoreFixture } from '@fate/conformance';
import { Fate, type FatesStore, type JsonValue, type Repo, type StepType } from '@fate/core';

/** What the steps of these tests read: a gate the case opens. */
export interface Env {
  open: boolean;
}

/** Waits (deferred, 50 ms at a time) until the gate opens; its state is shown on the pages. */
export class Gate implements Repo<Env> {
  readonly type = 'gate';
  constructor(readonly data: JsonValue = null) {}
  isReady = (_id: string, env: Env) => (env.open ? 0 : 50);
  call = () => undefined;
  undo(): void {}
  state = (): JsonValue => this.data;
}

/** Fails with the message of its state. */
export class Boom implements Repo<Env> {
  readonly type = 'boom';
  constructor(readonly message: string) {}
  isReady = () => 0;
  call(): undefined {
    throw new Error(this.message);
  }
  undo(): void {}
  state = (): JsonValue => this.message;
}

export const STEPS: StepType<Env>[] = [
  { type: 'gate', fromState: (s) => new Gate(s) },
  { type: 'boom', fromState: (s) => new Boom(String(s)) },
];

/** A token long enough for the console (16 characters at least). */
export const TOKEN = 'test-token-0123456789abcdef';

/** A store with an engine running the steps above, and a console on it; all closed by `stop`. */
export interface Rig {
  readonly store: FatesStore;
  readonly engine: Fate<Env>;
  readonly env: Env;
  readonly ui: UiServer;
  readonly logs: string[];
  /** Another console on the same store (closed by `stop`). */
  console(options?: { token?: string; allowActions?: boolean }): Promise<UiServer>;
  stop(): Promise<void>;
}

export async function startRig(
  fixture: StoreFixture & { readonly url: string },
  options: { readonly engine?: boolean } = {},
): Promise<Rig> {
  const env: Env = { open: true };
  const stores: FatesStore[] = [];
  const servers: UiServer[] = [];
  const client = async () => {
    const s = await openClient(fixture);
    stores.push(s);
    return s;
  };
  const store = await client();
  const engine = new Fate<Env>({ store: await client(), env, steps: STEPS, workers: 4 });
  if (options.engine !== false) await engine.start();
  const logs: string[] = [];
  const consoleOn = async (o: { token?: string; allowActions?: boolean } = {}) => {
    const server = await startUi({
      store: await client(),
      storeUrl: fixture.url,
      port: 0,
      refreshMs: 250,
      log: (line) => logs.push(line),
      ...(o.token !== undefined ? { token: o.token } : {}),
      ...(o.allowActions !== undefined ? { allowActions: o.allowActions } : {}),
    });
    servers.push(server);
    return server;
  };
  const ui = await consoleOn({ token: TOKEN, allowActions: true });
  return {
    store,
    engine,
    env,
    ui,
    logs,
    console: consoleOn,
    async stop() {
      await Promise.allSettled(servers.map((s) => s.close()));
      if (options.engine !== false) await engine.shutdown(5_000);
      await Promise.allSettled(stores.map((s) => s.close()));
    },
  };
}
