/**
 * The Store: plain objects in and out, no knex types. One interface per aggregate, each in its
 * folder (src/store/<aggregate>/store.ts) beside its queries (queries.ts), its row mapping
 * (rows.ts) and, for the hot paths, each database's fast path (sqlite.ts, postgres.ts); the
 * records they carry are the domain's (src/domain/). A caller asks for only the part it uses
 * (`Pick<Store, 'users'>`). test/store/store.test.ts calls every method of every aggregate on both
 * databases.
 */
import type { AppStore } from './apps/store.js';
import type { AuthenticatorAppStore } from './authenticator-app/store.js';
import type { DeviceAuthorizationStore } from './device-authorizations/store.js';
import type { EmailLinkStore } from './email-links/store.js';
import type { GameStore } from './games/store.js';
import type { GrantStore } from './grants/store.js';
import type { ModerationStore } from './moderation/store.js';
import type { PasskeyStore } from './passkeys/store.js';
import type { PictureRowStore } from './pictures/store.js';
import type { PurgeStore } from './purge/store.js';
import type { RateLimitStore } from './rate-limits/store.js';
import type { RefreshTokenStore } from './refresh-tokens/store.js';
import type { SecurityEventStore } from './security-events/store.js';
import type { SessionStore } from './sessions/store.js';
import type { SignInStore } from './sign-ins/store.js';
import type { SigningKeyStore } from './signing-keys/store.js';
import type { UpstreamIdentityStore } from './upstream-identities/store.js';
import type { UpstreamStore } from './upstreams/store.js';
import type { UserStore } from './users/store.js';

/** What the outage guard (src/store/outage.ts) reports about a failed database call: metrics count them. */
export type DatabaseErrorListener = (kind: 'unavailable' | 'other') => void;

/** Opening, checking and closing the database, and hearing of its failures. */
interface StoreLifecycle {
  /** Runs pending migrations. */
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Called on every failed database call: 'unavailable' when it failed because the database
   * cannot be reached (the call then throws Unavailable), 'other' for anything else.
   */
  onDatabaseError(listener: DatabaseErrorListener): void;
}

/**
 * The one list of aggregates: each is a property of the Store, named for its folder
 * (src/store/<aggregate>/), so a call names what it touches (`store.apps.redeemCode(...)`).
 * KnexStore (knex-store.ts) makes each from its queries class; the compiler holds the two together.
 */
export interface Aggregates {
  users: UserStore;
  apps: AppStore;
  refreshTokens: RefreshTokenStore;
  deviceAuthorizations: DeviceAuthorizationStore;
  signingKeys: SigningKeyStore;
  upstreams: UpstreamStore;
  upstreamIdentities: UpstreamIdentityStore;
  games: GameStore;
  grants: GrantStore;
  sessions: SessionStore;
  emailLinks: EmailLinkStore;
  signIns: SignInStore;
  passkeys: PasskeyStore;
  authenticatorApp: AuthenticatorAppStore;
  moderation: ModerationStore;
  securityEvents: SecurityEventStore;
  rateLimits: RateLimitStore;
  purge: PurgeStore;
  pictures: PictureRowStore;
}

/** The whole store: the lifecycle, and every aggregate under its name. */
export interface Store extends StoreLifecycle, Readonly<Aggregates> {}
