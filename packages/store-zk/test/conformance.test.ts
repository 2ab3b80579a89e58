import { runStoreConformance } from '@fate/conformance';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { reusingZkFactory } from './zk-chroot-reuse.js';

// The store suite without credentials, one ZooKeeper for this file; every fixture gets its
// own chroot on it, emptied after it for a later case (zk-chroot-reuse.ts). Both suites
// run with digest credentials and ACLs (conformance-auth).
const zookeeper = useService(() => startZooKeeper());

runStoreConformance({ name: 'zookeeper', factory: reusingZkFactory(zookeeper) });
