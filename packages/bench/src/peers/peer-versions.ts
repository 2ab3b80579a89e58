import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The installed version of package `name` (its package.json, found from its entry). */
export function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (pkg.name === name) return String(pkg.version);
    } catch {
      // not here: one folder up
    }
    dir = dirname(dir);
  }
  return 'unknown';
}
