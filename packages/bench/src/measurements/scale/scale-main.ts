import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { progress } from '../../reporting/results.js';
import { type BackendName, startBackend } from '../../services/backends.js';
import { benchScale, type ScaleRow, scaleTable } from './scale.js';
import { benchZkScale, type ZkScaleRow } from './scale-zk.js';

const USAGE = `usage: node packages/bench/dist/main.js --mode scale [options]
  --backend sqlite|postgres|redis|zk|all   (default all: sqlite, postgres, redis)
                                  zk: seeded through the API; full-read costs only
  --sizes N,N                     retained transactions per store (default 100000,1000000)
  --drain S                       seconds the engine process drains each store (default 15)
  --json FILE                     write the rows as JSON there too`;

/** `--mode scale`: prints the table (and the load average); returns the exit status. */
export async function scaleMain(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      mode: { type: 'string' },
      backend: { type: 'string', default: 'all' },
      sizes: { type: 'string', default: '100000,1000000' },
      drain: { type: 'string', default: '15' },
      json: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const names =
    values.backend === 'all' ? ['sqlite', 'postgres', 'redis'] : [values.backend as string];
  const sizes = (values.sizes as string).split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1_000)) {
    process.stderr.write(`sizes are whole numbers >= 1000\n${USAGE}\n`);
    return 2;
  }
  const rows: ScaleRow[] = [];
  const zkRows: ZkScaleRow[] = [];
  const loads: string[] = [];
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  for (const name of names) {
    if (!['sqlite', 'postgres', 'redis', 'zk'].includes(name)) {
      process.stderr.write(`--mode scale runs sqlite, postgres, redis and zk only\n`);
      return 2;
    }
    const backend = await startBackend(name as BackendName);
    try {
      loads.push(`${name} start: ${load()}`);
      if (name === 'zk') {
        for (const size of sizes) zkRows.push(await benchZkScale(backend, size, progress));
      } else rows.push(...(await benchScale(backend, sizes, Number(values.drain), progress)));
      loads.push(`${name} end: ${load()}`);
    } finally {
      await backend.stop();
    }
  }
  const table = [
    ...(rows.length > 0 ? [scaleTable(rows)] : []),
    ...zkRows.map((r) => `zk ${JSON.stringify(r)}`),
  ].join('\n');
  process.stdout.write(`${table}\n\nload average (1, 5, 15 min): ${loads.join('; ')}\n`);
  if (values.json)
    writeFileSync(values.json, `${JSON.stringify({ rows, zkRows, loads }, null, 2)}\n`);
  return 0;
}
