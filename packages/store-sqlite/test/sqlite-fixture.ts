import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreFixture } from '@fate/conformance';
import { createStoreBackend } from '@fate/store-sqlite';
import Database from 'better-sqlite3';

/** Garbage per column: a status no one knows, JSON that does not parse. */
const GARBAGE = { status: 'BOGUS', stack: '{not json', info: '{not json' } as const;

/** A fresh database file in its own temp directory; every `backend()` is a new connection. */
export function sqliteFixture(): StoreFixture & {
  readonly file: string;
  readonly dir: string;
  readonly url: string;
} {
  const dir = mkdtempSync(join(tmpdir(), 'fate-test-'));
  const file = join(dir, 'fate.db');
  const url = `sqlite:${file}`;
  return {
    file,
    dir,
    url,
    backend: () => createStoreBackend(url),
    async corrupt(id, field) {
      const column = ({ status: 'status', stack: 'stack', info: 'info' } as const)[field];
      const raw = new Database(file, { timeout: 5_000 });
      try {
        raw.prepare(`UPDATE transactions SET ${column} = ? WHERE id = ?`).run(GARBAGE[field], id);
      } finally {
        raw.close();
      }
    },
    async leftovers() {
      // data tables only: fate_meta (the schema version) is the skeleton
      const raw = new Database(file, { readonly: true, timeout: 5_000 });
      try {
        const rows = raw
          .prepare(
            "SELECT 'transaction ' || id AS row FROM transactions UNION ALL SELECT 'liveness ' || lock_id FROM liveness",
          )
          .all() as Array<{ row: string }>;
        return rows.map((r) => r.row);
      } finally {
        raw.close();
      }
    },
    async destroy() {
      // The suites close the clients they open; the files go with the directory.
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
