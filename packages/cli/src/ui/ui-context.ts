import type { FatesStore } from '@fate/core';
import type { CountSampler } from './count-sampler.js';
import type { TxSource } from './tx-source.js';
import type { UiAuth } from './ui-auth.js';

/** What the console's pages and actions share for the life of one server. */
export interface UiContext {
  readonly store: FatesStore;
  /** The store URL with any password hidden, for the pages. */
  readonly storeLabel: string;
  readonly source: TxSource;
  readonly sampler: CountSampler;
  readonly auth: UiAuth;
  readonly allowActions: boolean;
  /** How often the pages' live parts reload, ms. */
  readonly refreshMs: number;
  /** One line per thing the console did (actions, logins, refusals). */
  readonly log: (line: string) => void;
}
