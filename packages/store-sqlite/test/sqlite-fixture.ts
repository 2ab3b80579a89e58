import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreFixture } from '@fate/conformance';
import type { FatesStore } from '@fate/core';
import { createSqliteStore } from '@fate/store-sqlite';
import Database from 'better-sqlite3';

/** Garbage per column: a status no one knows, JSON that does not parse. */
const GARBAGE = { status: 'BOGUS', stack: '{not json', info: '{not json' } as const;

/** A fresh database file in its own temp directory; every `open` is a new connection. */
export function sqliteFixture(): StoreFixture & { readonly file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fate-test-'));
  const file = join(dir, 'fate.db');
  const opened: FatesStore[] = [];
  return {
    file,
    url: `sqlite:${file}`,
    async open(options) {
      const store = await createSqliteStore({ path: file }, options);
      opened.push(store);
      return store;
    },
    async corrupt(id, field) {
      const column = ({ status: 'status', stack: 'stack', info: 'info' } as const)[field];
      const raw = new Database(file, { timeout: 5_000 });
      try {
        raw.prepare(`UPDATE transactions SET ${column} = ? WHERE id = ?`).run(GARBAGE[field], id);
      } finally {
        raw.close();
      }
    },
    async destroy() {
      await Promise.allSettled(opened.map((s) => s.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
