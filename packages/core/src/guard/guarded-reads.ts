import type { StoreBackend } from '../contract/backend.js';
import type { FatesStore } from '../contract/fates-store.js';
import type {
  AgeOffCandidate,
  AgeOffQuery,
  ListPage,
  ListQuery,
  StoreCounts,
  StoreQueryCosts,
} from '../contract/query-types.js';
import type {
  AgeOffOptions,
  AgeOffResult,
  FateView,
  IdRange,
  ListFilter,
  ScanOptions,
  ScanResult,
  TxSummary,
} from '../contract/types.js';
import { type FateId, parseFateId } from '../ids.js';
import { ageOff } from './age-off.js';
import * as ageOffQueries from './age-off-queries.js';
import type { BackendCaller } from './backend-caller.js';
import { decodeView } from './codec.js';
import { scanPage } from './scan-page.js';
import * as queries from './store-queries.js';
import { checkListFilter, summarizeRows } from './summarize.js';

/** The guard's reads and queries (read, list, pages, counts, scans) and age-off. */
export class GuardedReads {
  /** The backend itself, for its capabilities and optional query methods; calls go through `#backend`. */
  readonly #store: StoreBackend;
  readonly #backend: BackendCaller;

  constructor(store: StoreBackend, backend: BackendCaller) {
    this.#store = store;
    this.#backend = backend;
  }

  async read(id: FateId): Promise<FateView> {
    parseFateId(id);
    const record = await this.#backend.retried('read', (b) => b.read(id));
    if (!record) return { id, status: 'UNKNOWN', stack: [], info: {}, deferUntil: 0, priority: 0 };
    return decodeView(id, record);
  }

  async list(filter: ListFilter = {}): Promise<TxSummary[]> {
    const statuses = checkListFilter(filter);
    const rows = await this.#backend.retried('list', (b) => b.list(statuses));
    return summarizeRows(rows, statuses, filter.opName);
  }

  get queryCosts(): StoreQueryCosts {
    return queries.queryCosts(this.#store);
  }

  listPage(query: ListQuery = {}): Promise<ListPage> {
    return queries.listPage(this.#backend, this.#store, query, () => this.#store.now());
  }

  counts(): Promise<StoreCounts> {
    return queries.counts(this.#backend, this.#store);
  }

  ageOffDue(query: AgeOffQuery = {}): Promise<AgeOffCandidate[]> {
    return ageOffQueries.ageOffDue(this.#backend, this.#store, query);
  }

  scanRunnable(range?: IdRange, options?: ScanOptions): Promise<ScanResult> {
    return scanPage(
      range,
      options,
      (r, limit, after) =>
        this.#backend.retried('scanRunnable', (b) => b.scanRunnable(r, limit, after)),
      this.#store.capabilities.priorities,
    );
  }

  ageOff(store: FatesStore, options?: AgeOffOptions): Promise<AgeOffResult> {
    const b = this.#store;
    if (typeof b.ageOffDue === 'function' && typeof b.deleteAgedOff === 'function') {
      return ageOffQueries.ageOffInBatches(this.#backend, b, options ?? {});
    }
    return ageOff(store, options);
  }
}
