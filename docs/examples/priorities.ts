import type { Fate, Repo } from '@fate/core';

declare const fate: Fate<void>; // an engine, as in the quickstart
declare const refund: Repo<void>; // your first steps
declare const report: Repo<void>;

// -5..5, default 0: within its partition an engine takes higher priorities first.
await fate.seed(refund, { opName: 'refund', priority: 5 });
await fate.seed(report, { opName: 'nightly-report', priority: -3 });
// Reads and `fate show` / `fate list` say it; a child inherits its parent's unless its spec names one.
const { priority } = await fate.read((await fate.seed(report, { opName: 'report' })).id);

export { priority };
