// A vitest reporter for the mutation harness: one line per mutant as its run ends, and the
// results as JSON in $FATE_MUTANTS_REPORT for run.mjs. A mutant's run is a top-level describe
// titled `<target> mutant|control <name> #<promise>` (see runMutantConformance).
import { writeFileSync } from 'node:fs';

const TITLE = /^(\S+) (mutant|control) (\S+) #(\d+)$/;

/** "a > b > c" of a case, without the mutant's describe and the suite's own. */
function caseName(testCase) {
  const parts = [];
  for (let t = testCase; t && t.type !== 'module'; t = t.parent) parts.unshift(t.name);
  return parts.slice(2).join(' › ');
}

function firstLine(errors) {
  const message = errors?.[0]?.message ?? '';
  const line = message.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

export default class MutantReporter {
  results = [];

  onTestSuiteResult(suite) {
    const m = TITLE.exec(suite.name);
    if (!m || suite.parent?.type !== 'module') return;
    const [, target, kind, name, promise] = m;
    let ran = 0;
    let ms = 0;
    const failed = [];
    for (const test of suite.children.allTests()) {
      const result = test.result();
      ms += test.diagnostic()?.duration ?? 0;
      if (result.state === 'passed' || result.state === 'failed') ran++;
      if (result.state === 'failed') {
        failed.push({ case: caseName(test), error: firstLine(result.errors) });
      }
    }
    // every case skipped: the backend lacks the capability the mutant's promise needs
    const applies = ran > 0;
    const verdict = !applies
      ? 'not applicable'
      : failed.length
        ? `killed by ${failed[0].case}`
        : 'survived';
    const ok = !applies || (kind === 'control') === (failed.length === 0);
    this.results.push({ target, kind, name, promise: Number(promise), applies, ran, ms, failed });
    process.stdout.write(
      `${ok ? '✓' : '✗'} ${target} ${kind} ${name}: ${verdict} (${ran} cases, ${(ms / 1000).toFixed(1)} s)\n`,
    );
  }

  onTestRunEnd(_modules, unhandledErrors) {
    const path = process.env.FATE_MUTANTS_REPORT;
    if (!path) return;
    const unhandled = unhandledErrors.map((e) => firstLine([e]));
    writeFileSync(path, JSON.stringify({ results: this.results, unhandled }, null, 2));
  }
}
