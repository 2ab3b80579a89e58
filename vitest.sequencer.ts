import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files, longest first. vitest starts files in the order its sequencer
 * gives and, without the timings of an earlier run (a clean checkout, CI after `npm ci`),
 * sorts by file size, largest first: the conformance and simulation files, a few lines that
 * call a shared suite, came last, and the run ended with one of them going on alone while
 * the other worker sat idle. Started first, the short files fill in at the end instead.
 * The order is the files' durations measured alone or in small groups on the 2-core machine
 * (2026-12-02, load 2-5); a file missing from the list only starts later,
 * among vitest's own order, so the list needs no exact upkeep.
 */
export const LONGEST_FIRST: readonly string[] = [
  'packages/store-postgres/test/conformance.test.ts',
  'packages/store-zk/test/conformance.test.ts',
  'packages/store-zk/test/conformance-ensemble.test.ts',
  'packages/store-postgres/test/conformance-tls.test.ts',
  'packages/store-redis/test/conformance.test.ts',
  'packages/store-sqlite/test/conformance.test.ts',
  'packages/store-zk/test/conformance-auth.test.ts',
  'packages/bench/test/bench-modes.test.ts',
  'packages/cli/test/simulation.test.ts',
  'packages/store-redis/test/conformance-cluster.test.ts',
  'packages/cli/test/demo.test.ts',
  'packages/conformance/test/conformance.test.ts',
  'packages/store-postgres/test/simulation.test.ts',
  'packages/store-sqlite/test/simulation.test.ts',
  'packages/cli/test/fail-delete.test.ts',
  'packages/cli/test/cli-usage.test.ts',
  'packages/cli/test/ui/ui-browser.test.ts',
  'packages/store-redis/test/conformance-tls.test.ts',
  'packages/store-zk/test/simulation.test.ts',
  'packages/store-redis/test/simulation.test.ts',
  'packages/cli/test/list.test.ts',
  'packages/store-postgres/test/postgres-faults.test.ts',
  'packages/store-zk/test/zk-ensemble.test.ts',
  'packages/cli/test/show.test.ts',
  'packages/cli/test/no-such-store.test.ts',
];

/** vitest's own order (earlier timings, else size), with the files of `LONGEST_FIRST` ahead. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const path = file.moduleId.replaceAll('\\', '/');
      const i = LONGEST_FIRST.findIndex((long) => path.endsWith(`/${long}`));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((file, at) => ({ file, at, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.at - b.at)
      .map(({ file }) => file);
  }
}
