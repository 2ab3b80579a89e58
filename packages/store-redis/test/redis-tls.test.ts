import { createRedisStore } from '@fate/store-redis';
import { type RedisTlsTestService, startRedisTls } from '@fate/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeUser, storeUserRules } from './redis-acl.js';

// What a TLS connection refuses, and what an ACL user limited to one prefix may not do.
let redis: RedisTlsTestService;

beforeAll(async () => {
  redis = await startRedisTls();
});

afterAll(async () => {
  await redis?.stop();
});

async function openError(target: string): Promise<{ code?: string; message: string }> {
  try {
    await (await createRedisStore(target)).close();
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('opening the store succeeded');
}

const tlsUrl = (ca?: string, credentials = '') =>
  `rediss://${credentials}127.0.0.1:${redis.tlsPort}${ca === undefined ? '' : `?ca=${encodeURIComponent(ca)}`}`;

describe('Redis over TLS', () => {
  it('opens with the CA that signed the server certificate, and works', async () => {
    const store = await createRedisStore(`${tlsUrl(redis.certs.ca)}&prefix=tls-ok`);
    try {
      const { id } = await store.seed({ step: { type: 's', state: {} }, opName: 'op' });
      expect((await store.read(id)).status).toBe('SUBMITTED');
    } finally {
      await store.close();
    }
  });

  it.each([
    ['a CA that did not sign it', () => redis.certs.wrongCa],
    ['only the system CAs', () => undefined],
  ])(
    'refuses the server certificate with %s, as FATE_STORE_CONFIG naming the cause',
    async (_, ca) => {
      const err = await openError(tlsUrl(ca()));
      expect(err.code).toBe('FATE_STORE_CONFIG');
      expect(err.message).toMatch(/TLS certificate is not trusted/);
    },
  );

  it('refuses a CA file it cannot read, as FATE_STORE_CONFIG', async () => {
    const err = await openError(tlsUrl('/nonexistent/ca.pem'));
    expect(err.code).toBe('FATE_STORE_CONFIG');
    expect(err.message).toMatch(/cannot read the CA file "\/nonexistent\/ca.pem" \(ENOENT\)/);
  });
});

describe('an ACL user limited to one prefix', () => {
  it('cannot open, read or write a store under another prefix; its password is in no message', async () => {
    const { user, password } = storeUser('mine');
    await redis.admin('ACL', 'SETUSER', user, ...storeUserRules('mine', password));
    const credentials = `${user}:${password}@`;
    const own = await createRedisStore(`${tlsUrl(redis.certs.ca, credentials)}&prefix=mine`);
    await own.seed({ step: { type: 's', state: {} }, opName: 'op' });
    await own.close();
    const err = await openError(`${tlsUrl(redis.certs.ca, credentials)}&prefix=theirs`);
    expect(err.code).toBe('FATE_STORE_CONFIG');
    expect(err.message).toMatch(/NOPERM/);
    expect(err.message).not.toContain(password);
  });

  it('fails a seed at once, as FATE_STORE_CONFIG, when a script meets a command the ACL refuses', async () => {
    // HINCRBY inside the insert script: Redis answers "ERR The user executing the script
    // can't run this command…", not "NOPERM …", and taken for an outage it was retried, the retry found the half-written record, and the
    // seed "succeeded" with a transaction no scan would ever find
    const { user, password } = storeUser('short');
    const rules = storeUserRules('short', password).filter((r) => r !== '+hincrby');
    await redis.admin('ACL', 'SETUSER', user, ...rules);
    const store = await createRedisStore(
      `${tlsUrl(redis.certs.ca, `${user}:${password}@`)}&prefix=short`,
    );
    try {
      const started = performance.now();
      let err: { code?: string; message: string } | undefined;
      try {
        await store.seed({ step: { type: 's', state: {} }, opName: 'op' });
      } catch (e) {
        err = e as { code?: string; message: string };
      }
      expect(err?.code).toBe('FATE_STORE_CONFIG');
      expect(err?.message).toMatch(/ACL does not allow/);
      expect(performance.now() - started).toBeLessThan(5_000); // no retries until a timeout
    } finally {
      await store.close();
    }
  });
});
