import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** PEM files made for one test server: its CA, its key and certificate, and a CA that did not sign it. */
export interface TestCertificates {
  /** The CA that signed the server's certificate (what a client should trust). */
  readonly ca: string;
  /** The server's certificate, for `localhost` and `127.0.0.1`, signed by `ca`. */
  readonly cert: string;
  /** The server's private key (mode 0600, as PostgreSQL requires). */
  readonly key: string;
  /** Another self-signed CA, which signed nothing here: trusting only it must fail. */
  readonly wrongCa: string;
}

const openssl = (dir: string, ...args: string[]) =>
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/**
 * Makes a throwaway CA and a server certificate it signed (EC P-256, valid one day, with
 * subject alternative names `localhost` and `127.0.0.1`) in `dir`, with `openssl`, at
 * test time, so no key is ever checked in. Also a second, unrelated CA.
 */
export function makeTestCertificates(dir: string): TestCertificates {
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  for (const name of ['ca', 'wrong-ca']) {
    openssl(
      dir,
      'req',
      '-x509',
      ...curve,
      '-days',
      '1',
      '-subj',
      `/CN=fate test ${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
    );
  }
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    dir,
    'req',
    ...curve,
    '-subj',
    '/CN=localhost',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'san.ext',
    '-out',
    'server.pem',
  );
  execFileSync('chmod', ['600', join(dir, 'server.key')]);
  return {
    ca: join(dir, 'ca.pem'),
    cert: join(dir, 'server.pem'),
    key: join(dir, 'server.key'),
    wrongCa: join(dir, 'wrong-ca.pem'),
  };
}
