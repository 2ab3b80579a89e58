// `fate show` of a transaction whose step was retried: which step, attempts of how many,
// and the last errors kept, as an engine wrote them (text and JSON), on every backend.
import { openClient, type StoreFixture } from '@fate/conformance';
import { Fate, type FatesStore, type JsonValue, type Repo, Status } from '@fate/core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, fate, stopServices } from './cli-harness.js';

afterAll(stopServices);

class CallApi implements Repo<null> {
  readonly type = 'call-api';
  readonly retry = { attempts: 3, backoffMs: 10, jitter: 0 };
  isReady = () => 0;
  call(): undefined {
    throw Object.assign(new Error('503 from the API'), { code: 'E503' });
  }
  undo(): void {}
  state = (): JsonValue => ({});
}

describe.each(BACKENDS)('fate show of retries on $name', (backend) => {
  let fixture: StoreFixture & { readonly url: string };
  let store: FatesStore;

  beforeEach(async () => {
    fixture = await backend.fixture();
    store = await openClient(fixture);
  });
  afterEach(async () => {
    await store.close();
    await fixture.destroy();
  });

  it('shows the attempts of the retried step and its last errors', async () => {
    const engine = new Fate<null>({
      store,
      env: null,
      steps: [{ type: 'call-api', fromState: () => new CallApi() }],
      workers: 1,
    });
    await engine.start();
    const { id } = await engine.seed(new CallApi(), { opName: 'sync' });
    try {
      expect((await engine.waitForCompletion(id, { timeoutMs: 20_000 })).status).toBe(
        Status.FAILED,
      );
    } finally {
      await engine.shutdown(5_000);
    }
    const text = await fate(['show', id, '--store', fixture.url]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      '\nretries       step 1 (call-api): 3 of 3 attempts failed; last 3 errors, oldest first:\n' +
        '  1.          Error [E503]: 503 from the API\n' +
        '  2.          Error [E503]: 503 from the API\n' +
        '  3.          Error [E503]: 503 from the API\n' +
        'error         Error: 503 from the API\n',
    );
    const json = JSON.parse((await fate(['show', id, '--json', '--store', fixture.url])).stdout);
    expect(json.retry).toEqual({
      depth: 1,
      type: 'call-api',
      attempts: 3,
      maxAttempts: 3,
      errors: Array.from({ length: 3 }, () => ({
        message: '503 from the API',
        name: 'Error',
        code: 'E503',
      })),
    });
    const none = await store.seed({ step: { type: 'call-api', state: {} }, opName: 'sync' });
    expect((await fate(['show', none.id, '--store', fixture.url])).stdout).toContain(
      '\nretries       none\n',
    );
  });
});
