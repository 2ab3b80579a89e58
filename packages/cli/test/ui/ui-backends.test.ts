import type { StoreFixture } from '@fate/conformance';
import { Status } from '@fate/core';
import {
  type PostgresTestService,
  startPostgres,
  startZooKeeper,
  type ZooKeeperTestService,
} from '@fate/test-services';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresFixture } from '../../../store-postgres/test/postgres-fixture.js';
import { zkFixture } from '../../../store-zk/test/zk-fixture.js';
import { Boom, Gate, startRig, TOKEN } from './ui-fixture.js';

// The console on the two backends the browser tests do not drive: every page answers with
// what the engine wrote (HTTP, no browser).

let postgres: PostgresTestService | undefined;
let zk: ZooKeeperTestService | undefined;
afterAll(async () => {
  await Promise.allSettled([postgres?.stop(), zk?.stop()]);
});

const BACKENDS: readonly {
  name: string;
  fixture(): Promise<StoreFixture & { readonly url: string }>;
}[] = [
  {
    name: 'postgres',
    async fixture() {
      postgres ??= await startPostgres();
      return postgresFixture(postgres.url);
    },
  },
  {
    name: 'zookeeper',
    async fixture() {
      zk ??= await startZooKeeper();
      return (await zkFixture(zk.url)) as StoreFixture & { readonly url: string };
    },
  },
];

describe.each(BACKENDS)('fate ui on $name', (backend) => {
  it('serves the overview, the list and a failed transaction with its error', async () => {
    const fixture = await backend.fixture();
    const rig = await startRig(fixture);
    try {
      const ok = await rig.engine.seed(new Gate({ n: 1 }), { opName: 'fine' });
      const failed = await rig.engine.seed(new Boom('card <declined>'), { opName: 'order' });
      for (const { id } of [ok, failed])
        await rig.engine.waitForCompletion(id, { timeoutMs: 20_000 });
      const login = await fetch(`${rig.ui.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Origin: rig.ui.url, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `token=${TOKEN}`,
      });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const get = async (path: string) => {
        const res = await fetch(`${rig.ui.url}${path}`, { headers: { Cookie: cookie } });
        expect(res.status, path).toBe(200);
        return res.text();
      };
      expect(await get('/?fragment=live')).toMatch(/data-status="SUCCESSFUL">1</);
      expect(await get('/?fragment=live')).toMatch(/data-status="FAILED">1</);
      const list = await get('/tx?status=FAILED');
      expect(list).toContain(failed.id);
      expect(list).not.toContain(ok.id);
      const page = await get(`/tx/${failed.id}`);
      expect(page).toContain('card &lt;declined&gt;');
      expect((await rig.store.read(failed.id)).status).toBe(Status.FAILED);
    } finally {
      await rig.stop();
      await fixture.destroy();
    }
  });
});
