import { createPostgresBackend, createPostgresStore } from '@fate/store-postgres';
import { type PostgresTestService, startPostgres } from '@fate/test-services';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withClient } from './postgres-fixture.js';
import { schemaOwner } from './postgres-roles.js';

// sslmode and sslrootcert with libpq's meaning, against a private cluster with ssl=on
// whose pg_hba.conf lets roles other than the superuser in over TLS with a password only.
let pg: PostgresTestService;
let owner: Awaited<ReturnType<typeof schemaOwner>>;

beforeAll(async () => {
  pg = await startPostgres({ tls: true });
  owner = await schemaOwner(pg.url);
});

afterAll(async () => {
  await pg?.stop();
});

/** The schema owner's URL with these TLS parameters instead of the service's. */
function urlWith(params: Record<string, string>, password = owner.password): string {
  const url = new URL(owner.url);
  url.search = '';
  url.password = password;
  for (const [k, v] of Object.entries({ ...params, schema: owner.schema, poolSize: '2' })) {
    url.searchParams.set(k, v);
  }
  return url.href;
}

async function openError(url: string): Promise<{ code?: string; message: string }> {
  try {
    await (await createPostgresStore(url)).close();
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('opening the store succeeded');
}

const ca = () => pg.certs?.ca as string;
const wrongCa = () => pg.certs?.wrongCa as string;
/** The code of fate's warning that the server's certificate goes unchecked. */
const CODE = 'FATE_PG_CERT_UNCHECKED';

describe('PostgreSQL over TLS', () => {
  it('opens with sslmode=verify-full and the CA that signed the server certificate, over TLS', async () => {
    const store = await createPostgresStore(urlWith({ sslmode: 'verify-full', sslrootcert: ca() }));
    try {
      const { id } = await store.seed({ step: { type: 's', state: {} }, opName: 'op' });
      expect((await store.read(id)).status).toBe('SUBMITTED');
      // the store's own connections, read while it holds them
      const ssl = await withClient(pg.url, (c) =>
        c.query<{ connections: number; ssl: boolean | null }>(
          'SELECT count(*)::int AS connections, bool_and(ssl) AS ssl FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE usename = $1',
          [owner.role],
        ),
      );
      expect(ssl.rows[0]?.connections).toBeGreaterThan(0);
      expect(ssl.rows[0]?.ssl).toBe(true);
    } finally {
      await store.close();
    }
  });

  it.each([
    ['verify-full', 'a root certificate that did not sign it', () => ({ sslrootcert: wrongCa() })],
    ['verify-ca', 'a root certificate that did not sign it', () => ({ sslrootcert: wrongCa() })],
    ['verify-full', 'only the system CAs', () => ({})],
  ])('refuses the server with sslmode=%s and %s, as FATE_STORE_CONFIG', async (mode, _, extra) => {
    const err = await openError(urlWith({ sslmode: mode, ...extra() }));
    expect(err.code).toBe('FATE_STORE_CONFIG');
    expect(err.message).toMatch(/certificate/);
    expect(err.message).not.toContain(owner.password);
  });

  it('refuses an sslrootcert it cannot read, as FATE_STORE_CONFIG', async () => {
    const err = await openError(
      urlWith({ sslmode: 'verify-full', sslrootcert: '/nonexistent/ca.pem' }),
    );
    expect(err.code).toBe('FATE_STORE_CONFIG');
    expect(err.message).toMatch(/ENOENT/);
  });

  it.each([
    ['require', 'without sslrootcert', () => ({})],
    [
      'prefer',
      'even with a root certificate that did not sign it',
      () => ({ sslrootcert: wrongCa() }),
    ],
  ])(
    'opens with sslmode=%s %s (certificate unchecked) and warns once, never as node-postgres',
    async (mode, _, extra) => {
      const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      try {
        const store = await createPostgresStore(urlWith({ sslmode: mode, ...extra() }));
        await store.close();
        const warnings = warn.mock.calls.map((c) => String(c[0]));
        expect(warnings.filter((w) => /SECURITY WARNING/.test(w))).toEqual([]);
        const ours = warn.mock.calls.filter((c) => (c[1] as { code?: string })?.code === CODE);
        expect(ours.length).toBe(1);
        expect(String(ours[0]?.[0])).toContain(`sslmode=${mode} encrypts but does not check`);
        expect(String(ours[0]?.[0])).not.toContain(owner.password);
      } finally {
        warn.mockRestore();
      }
      expect(createPostgresBackend(`postgres://h/d?sslmode=${mode}`).config).toMatchObject({
        connectionString: `postgres://h/d?sslmode=${mode}&uselibpqcompat=true`,
      });
    },
  );

  it('warns of no unchecked certificate with verify-full, or with require and sslrootcert', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      for (const mode of ['verify-full', 'require']) {
        await (await createPostgresStore(urlWith({ sslmode: mode, sslrootcert: ca() }))).close();
      }
      expect(warn.mock.calls.filter((c) => (c[1] as { code?: string })?.code === CODE)).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('refuses sslmode values libpq does not define (or cannot be honoured)', () => {
    for (const mode of ['no-verify', 'allow', 'bogus']) {
      expect(() => createPostgresBackend(`postgres://h/d?sslmode=${mode}`)).toThrow(
        expect.objectContaining({ code: 'FATE_INVALID_ARGUMENT' }),
      );
    }
  });

  it('refuses a wrong password over TLS, and a connection without TLS, as FATE_STORE_CONFIG without the password', async () => {
    const wrong = await openError(
      urlWith({ sslmode: 'verify-full', sslrootcert: ca() }, 'not-the-password'),
    );
    expect(wrong.code).toBe('FATE_STORE_CONFIG');
    expect(wrong.message).not.toContain('not-the-password');
    const plain = await openError(urlWith({ sslmode: 'disable' }));
    expect(plain.code).toBe('FATE_STORE_CONFIG');
    expect(plain.message).not.toContain(owner.password);
  });
});
