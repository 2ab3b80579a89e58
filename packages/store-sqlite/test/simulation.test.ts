import { runSimulationSuite } from '@fate/conformance/simulation';
import { sqliteFixture } from './sqlite-fixture.js';

runSimulationSuite({ name: 'sqlite', factory: async () => sqliteFixture() });
