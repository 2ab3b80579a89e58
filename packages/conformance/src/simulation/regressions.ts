import type { Scenario } from './scenario.js';

/**
 * Counterexamples the simulation found (shrunk by fast-check), each replayed by a test that
 * must see no violation. `seed`/`path` replay it through `scenarioArb` as generated when it
 * was found (`FATE_SIM_SEED=seed FATE_SIM_PATH=path npm run test:sim`); `scenario` is the
 * counterexample itself, so the case stays exact when the generator changes. See
 * REGRESSIONS.md beside this file for what each violated on the code before its fix.
 */
export interface Regression {
  readonly name: string;
  /** Absent for a scenario found by a generator since changed (then only `scenario` replays it). */
  readonly seed?: number;
  readonly path?: string;
  readonly scenario: Scenario;
}

export const REGRESSIONS: readonly Regression[] = [
  {
    name: 'fault 2: a step call began after its lease lapsed while isReady was pending',
    seed: 21,
    path: '7:0:0:3:2:2:3:3:3:3:5:0:6:5:5:6:4:8:2:0:6:6:8:6:2:2:2:2:8:3:4:3:2:2:5:7:21:21:22:21:21:22:22:28:25:25:25:25:25:25:25:36:37:36:38:37:39:49:49:49:49:49:49:49:49:49:49:49:49:49:49:49:49:49:49:49:49:49:61:2:2:2:2:3:6:2:3:3:6:5:15:12:12:12:16:12:13:12:12:52:51:53:52:54:52:52:51',
    scenario: {
      salt: 0,
      livenessTimeoutMs: 1000,
      retentionMs: 0,
      ageOffCheckMs: 500,
      engines: [
        { layout: 'one', workers: 1, scanner: 'range' },
        { layout: 'one', workers: 1, scanner: 'range' },
      ],
      commands: [
        {
          at: 0,
          kind: 'seed',
          many: false,
          txs: [
            {
              op: 'a',
              autoClean: true,
              steps: [
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: true,
                  callMs: 0,
                  throws: true,
                  ignoresSignal: false,
                  undoMs: 0,
                },
              ],
            },
          ],
        },
        {
          at: 1277,
          kind: 'seed',
          many: false,
          txs: [
            {
              op: 'a',
              autoClean: true,
              steps: [
                {
                  readyMs: 1235,
                  deferMs: 377,
                  readyThrows: false,
                  callMs: 0,
                  throws: true,
                  ignoresSignal: false,
                  undoMs: 0,
                },
              ],
            },
            {
              key: 'k1',
              op: 'a',
              autoClean: true,
              steps: [
                {
                  readyMs: 646,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 793,
                  throws: false,
                  ignoresSignal: false,
                  undoMs: 0,
                },
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: true,
                  callMs: 0,
                  throws: true,
                  ignoresSignal: false,
                  undoMs: 785,
                },
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: true,
                  callMs: 0,
                  throws: true,
                  ignoresSignal: false,
                  undoMs: 0,
                },
              ],
            },
          ],
        },
      ],
      faults: [
        { gap: 117, delayMs: 0, fault: 'none' },
        { gap: 54, delayMs: 626, fault: 'none' },
      ],
    },
  },
  {
    name: 'fault 4: the admin fail loops hot on a record deleted between its read and its reservation',
    seed: 11,
    path: '24:0:0:0:0:1:1:1:1:3:1:1:5:5:4:5:5:11:3:3:10:8:3:3:8:3:17:16:17:8:4:8:3:3:3:10:3:8:3:3:11:8:3:11:8:3:18:18:0:6:2:2:3:9:2:2:4:3:4:10:9:2:2:3:2:2:2:2:2:2:9:9:9:9:9:9:9:9:9:9:9:9:10:9:9:9:10:10:10:10:10:10:1:2:6:3:4:3:5:6:5:5:6:4:9:3:4:14:3:13:3:7:8:3:3:5:3:3:3:3:8:3:4:10:3:9:3:8:3:3:3:9:9:6:6:6:6:6:6:6:6:6:6:6:6',
    scenario: {
      salt: 0,
      livenessTimeoutMs: 1000,
      retentionMs: 0,
      ageOffCheckMs: 500,
      engines: [{ layout: 'one', workers: 1, scanner: 'range' }],
      commands: [
        {
          at: 0,
          kind: 'seed',
          many: false,
          txs: [
            {
              op: 'a',
              autoClean: true,
              steps: [
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: true,
                  callMs: 0,
                  throws: true,
                  ignoresSignal: false,
                  undoMs: 0,
                },
              ],
            },
          ],
        },
        {
          at: 1,
          kind: 'seed',
          many: false,
          txs: [
            {
              op: 'a',
              autoClean: true,
              steps: [
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 0,
                  throws: true,
                  ignoresSignal: false,
                  undoMs: 0,
                },
              ],
            },
          ],
        },
        { at: 2, kind: 'admin', op: 'fail', target: 0 },
      ],
      faults: [],
    },
  },
  {
    name: 'range and hash engines of one group stranded a transaction neither scanned',
    scenario: {
      salt: 1897745554,
      livenessTimeoutMs: 2000,
      retentionMs: 0,
      ageOffCheckMs: 2000,
      engines: [
        { layout: 'one', workers: 2, scanner: 'range' },
        { layout: 'one', workers: 1, scanner: 'hash' },
      ],
      commands: [
        { at: 4, kind: 'shutdown', engine: 1, timeoutMs: 1456 },
        {
          at: 5,
          kind: 'seed',
          many: true,
          txs: [
            {
              key: 'k1',
              op: 'a',
              autoClean: false,
              steps: [
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 1444,
                  throws: true,
                  ignoresSignal: true,
                  undoMs: 830,
                },
                {
                  readyMs: 2558,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 610,
                  throws: false,
                  ignoresSignal: true,
                  undoMs: 475,
                },
              ],
            },
          ],
        },
        {
          at: 6,
          kind: 'seed',
          many: true,
          txs: [
            {
              key: 'k2',
              op: 'b',
              autoClean: false,
              steps: [
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 1808,
                  throws: false,
                  ignoresSignal: true,
                  undoMs: 653,
                },
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 664,
                  throws: false,
                  ignoresSignal: true,
                  undoMs: 301,
                },
              ],
            },
            {
              key: 'k0',
              op: 'a',
              autoClean: false,
              steps: [
                {
                  readyMs: 2355,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 479,
                  throws: false,
                  ignoresSignal: true,
                  undoMs: 898,
                },
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 2428,
                  throws: false,
                  ignoresSignal: true,
                  undoMs: 341,
                },
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: true,
                  callMs: 1403,
                  throws: false,
                  ignoresSignal: false,
                  undoMs: 435,
                },
              ],
            },
            {
              key: 'k2',
              op: 'b',
              autoClean: false,
              steps: [
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 1754,
                  throws: false,
                  ignoresSignal: false,
                  undoMs: 995,
                },
                {
                  readyMs: 1299,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 1665,
                  throws: true,
                  ignoresSignal: false,
                  undoMs: 111,
                },
              ],
            },
          ],
        },
        {
          at: 984,
          kind: 'seed',
          many: true,
          txs: [
            {
              key: 'k0',
              op: 'b',
              autoClean: false,
              steps: [
                {
                  readyMs: 850,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 421,
                  throws: true,
                  ignoresSignal: true,
                  undoMs: 338,
                },
              ],
            },
            {
              key: 'k1',
              op: 'a',
              autoClean: false,
              steps: [
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 1704,
                  throws: false,
                  ignoresSignal: true,
                  undoMs: 108,
                },
                {
                  readyMs: 0,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 2268,
                  throws: false,
                  ignoresSignal: true,
                  undoMs: 395,
                },
                {
                  readyMs: 1657,
                  deferMs: 0,
                  readyThrows: false,
                  callMs: 1655,
                  throws: false,
                  ignoresSignal: true,
                  undoMs: 845,
                },
              ],
            },
          ],
        },
        { at: 2261, kind: 'ageOff', retentionMs: 2000 },
        { at: 5339, kind: 'shutdown', engine: 0, timeoutMs: 11 },
        { at: 5414, kind: 'admin', op: 'cancel', target: 1 },
        { at: 6568, kind: 'ageOff', retentionMs: 500 },
        { at: 7395, kind: 'ageOff', retentionMs: 500 },
        { at: 7994, kind: 'admin', op: 'fail', target: 18 },
      ],
      faults: [],
    },
  },
];
