import { runClusterConformance } from '@fate/conformance';
import { startZooKeeperEnsemble } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { reusingZkFactory } from './zk-chroot-reuse.js';

// The store suite and the multi-engine and multi-process cases (runClusterConformance),
// unchanged, on a three-server ensemble: every client's connect string names all three
// servers, so sessions land on followers and the leader alike and every write goes through
// the ensemble's quorum. Losing the leader is zk-ensemble.test.ts's business; the whole
// engine suite runs on a single server in conformance-auth.test.ts. Chroots go from case to
// case, emptied in between (zk-chroot-reuse.ts).
const ensemble = useService(() => startZooKeeperEnsemble());

runClusterConformance({
  name: 'zookeeper-ensemble',
  factory: reusingZkFactory(ensemble),
});
