// Not part of `npm test`: `npm run test:stryker zk` runs it (docs/mutation.md). The store
// suite on a private ZooKeeper, for Stryker's mutants of the ZooKeeper backend (its index
// upkeep too). Child-process cases skip: they would load dist/.
import { inProcessOnly, runStoreConformance } from '@fate/conformance';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { reusingZkFactory } from './zk-chroot-reuse.js';

const zookeeper = useService(() => startZooKeeper());

runStoreConformance({ name: 'zookeeper', factory: inProcessOnly(reusingZkFactory(zookeeper)) });
