import type { AppRecord, CodeRecord, TokenWithUser } from '../domain/apps.js';
import type { PublicUserRecord, UserRecord } from '../domain/users.js';
import { AppsQueries } from './apps/queries.js';
import { AuthenticatorAppQueries } from './authenticator-app/queries.js';
import { DeviceAuthorizationsQueries } from './device-authorizations/queries.js';
import { EmailLinksQueries } from './email-links/queries.js';
import { GamesQueries } from './games/queries.js';
import { GrantsQueries } from './grants/queries.js';
import { migrationSource } from './migrations/index.js';
import { ModerationQueries } from './moderation/queries.js';
import { PasskeysQueries } from './passkeys/queries.js';
import { PicturesQueries } from './pictures/queries.js';
import { PurgeQueries } from './purge/queries.js';
import { Queries } from './queries.js';
import { RateLimitsQueries } from './rate-limits/queries.js';
import { RefreshTokensQueries } from './refresh-tokens/queries.js';
import { SecurityEventsQueries } from './security-events/queries.js';
import { SessionsQueries } from './sessions/queries.js';
import { SignInsQueries } from './sign-ins/queries.js';
import { SigningKeysQueries } from './signing-keys/queries.js';
import type { DatabaseErrorListener, Store } from './types.js';
import { UpstreamIdentitiesQueries } from './upstream-identities/queries.js';
import { UpstreamsQueries } from './upstreams/queries.js';
import { UsersQueries } from './users/queries.js';

/** The pg connection under knex, as migrate() uses it. */
interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<unknown>;
}

/** The advisory lock key migrate() holds on PostgreSQL (any constant; this one spells "idp mig"). */
const MIGRATION_LOCK_KEY = 0x6964706d6967;

/** Each aggregate's queries, in src/store/<aggregate>/queries.ts; KnexStore is all of them. */
const AGGREGATES = [
  UsersQueries,
  AppsQueries,
  RefreshTokensQueries,
  DeviceAuthorizationsQueries,
  SigningKeysQueries,
  UpstreamsQueries,
  UpstreamIdentitiesQueries,
  GamesQueries,
  GrantsQueries,
  SessionsQueries,
  EmailLinksQueries,
  SignInsQueries,
  PasskeysQueries,
  AuthenticatorAppQueries,
  ModerationQueries,
  RateLimitsQueries,
  PurgeQueries,
  PicturesQueries,
  SecurityEventsQueries,
] as const;

/** Every aggregate's queries at once: the intersection of their classes' instance types. */
type AllQueries = UnionToIntersection<InstanceType<(typeof AGGREGATES)[number]>>;
type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void ? I : never;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the aggregates' methods, copied onto the class below
export interface KnexStore extends AllQueries {}

/**
 * The Store in knex, on both databases: the lifecycle here, every aggregate's queries from its
 * folder (src/store/<aggregate>/), and the six hot reads left to the database's own store:
 * PostgresStore (postgres-store.ts) and SqliteStore (sqlite-store.ts) each read a user, a public
 * user, a picture's timestamp, a token with its user, an app and a code with prepared statements,
 * and override a few more hot paths (the token exchange's redemption, RFC 7009 revocation).
 * openStoreAt (open.ts) picks which. Every lookup checks its keys first (the input guard, rows.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export abstract class KnexStore extends Queries implements Store {
  /** Told of every database error the outage guard (src/store/outage.ts) classifies. */
  errorListener: DatabaseErrorListener | undefined;

  abstract getUser(id: number): Promise<UserRecord | undefined>;
  abstract getPublicUser(id: number): Promise<PublicUserRecord | undefined>;
  abstract getPfpTimestamp(id: number): Promise<number | null | undefined>;
  abstract getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined>;
  abstract getApp(clientId: string): Promise<AppRecord | undefined>;
  abstract getCode(codeHash: string): Promise<CodeRecord | undefined>;

  onDatabaseError(listener: DatabaseErrorListener): void {
    this.errorListener = listener;
  }

  /**
   * On PostgreSQL, under a session advisory lock held on a connection of its own: instances
   * started at the same moment on an empty database run the migrations one after another (the
   * first runs them, the others find nothing left to do), instead of racing to create knex's own
   * tables, which knex's migration lock (a table itself) cannot prevent.
   */
  async migrate(): Promise<void> {
    if (this.dialect !== 'postgres') {
      await this.knex.migrate.latest({ migrationSource });
      return;
    }
    const client = this.knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
    const connection = await client.acquireConnection();
    try {
      // Waiting for another instance's migrations is not bounded by the statement timeout.
      await connection.query('set statement_timeout = 0');
      await connection.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      try {
        await this.knex.migrate.latest({ migrationSource });
      } finally {
        await connection.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        await connection.query('reset statement_timeout');
      }
    } finally {
      await client.releaseConnection(connection);
    }
  }

  async ping(): Promise<void> {
    await this.knex.raw('select 1');
  }

  async close(): Promise<void> {
    await this.knex.destroy();
  }
}

for (const aggregate of AGGREGATES) {
  for (const name of Object.getOwnPropertyNames(aggregate.prototype)) {
    if (name === 'constructor') continue;
    if (Object.hasOwn(KnexStore.prototype, name)) throw new Error(`Store method ${name} is defined twice`);
    Object.defineProperty(KnexStore.prototype, name, Object.getOwnPropertyDescriptor(aggregate.prototype, name) as PropertyDescriptor);
  }
}
