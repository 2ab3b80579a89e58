import { runConformance } from '@fate/conformance';
import { startZooKeeperEnsemble } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { zkFixture } from './zk-fixture.js';

// Both suites, unchanged, on a three-server ensemble: every client's connect string names
// all three servers, so sessions land on followers and the leader alike and every write
// goes through the ensemble's quorum. Losing the leader is zk-ensemble.test.ts's business.
const ensemble = useService(() => startZooKeeperEnsemble());

runConformance({
  name: 'zookeeper-ensemble',
  factory: async () => zkFixture((await ensemble()).url),
});
