import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestCertificates, type TestCertificates } from './tls-certs.js';

/**
 * Readies a fresh cluster's data dir for TLS: a CA and server certificate made now (the
 * key owned by the server's user, mode 0600, as PostgreSQL demands), `ssl=on`, and a
 * `pg_hba.conf` in which the superuser `postgres` is trusted on loopback (test set-up)
 * and every other role must connect over TLS with its password (scram-sha-256).
 * Returns the server flags and the URL parameters a verifying client needs.
 */
export function tlsCluster(
  dir: string,
  data: string,
  owner: { uid: number; gid: number } | undefined,
): { args: string[]; params: string; certs: TestCertificates } {
  const certDir = join(dir, 'certs');
  mkdirSync(certDir, { mode: 0o755 });
  const certs = makeTestCertificates(certDir);
  if (owner) {
    for (const file of [certDir, certs.cert, certs.key]) chownSync(file, owner.uid, owner.gid);
  }
  const hba = [
    'local all postgres trust',
    'host all postgres 127.0.0.1/32 trust',
    'hostssl all all 127.0.0.1/32 scram-sha-256',
    '',
  ].join('\n');
  const hbaFile = join(data, 'pg_hba.conf');
  writeFileSync(hbaFile, hba);
  if (owner) chownSync(hbaFile, owner.uid, owner.gid);
  return {
    args: [
      ...['-c', 'ssl=on', '-c', `ssl_cert_file=${certs.cert}`, '-c', `ssl_key_file=${certs.key}`],
      ...['-c', `hba_file=${hbaFile}`, '-c', 'password_encryption=scram-sha-256'],
    ],
    params: `?sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.ca)}&uselibpqcompat=true`,
    certs,
  };
}
