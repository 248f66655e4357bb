/** What the OAuth modules need of their surroundings: the store, the clock, the audit trail. */
import type { Audit } from '../audit.js';
import type { Store } from '../store/types.js';

export interface Deps {
  store: Store;
  now: () => number;
  /** The audit trail (code_replay_detected); absent where nobody listens (the CLI). */
  audit?: Audit;
}
