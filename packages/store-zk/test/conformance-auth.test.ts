import { runConformance } from '@fate/conformance';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { reusingZkFactory } from './zk-chroot-reuse.js';

// Both suites, unchanged, with every client authenticated (digest) and every node the store
// creates restricted to that identity by its ACL: the deployment the README recommends.
// Chroots go from case to case, emptied in between (zk-chroot-reuse.ts). The
// unauthenticated connection (conformance.test.ts) runs the store suite.
const zookeeper = useService(() => startZooKeeper());

runConformance({
  name: 'zookeeper with digest auth and ACLs',
  factory: reusingZkFactory(zookeeper, 'fate-suite:p@ss:w/rd%'),
});
