import { runClusterConformance } from '@fate/conformance';
import { startZooKeeperEnsemble } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { zkFixture } from './zk-fixture.js';

// The store suite and the multi-engine and multi-process cases (runClusterConformance),
// unchanged, on a three-server ensemble: every client's connect string names all three
// servers, so sessions land on followers and the leader alike and every write goes through
// the ensemble's quorum. Losing the leader is zk-ensemble.test.ts's business; the whole
// engine suite runs on a single server in conformance.test.ts.
const ensemble = useService(() => startZooKeeperEnsemble());

runClusterConformance({
  name: 'zookeeper-ensemble',
  factory: async () => zkFixture((await ensemble()).url),
});
