import type { Knex } from 'knex';
import type { Dialect } from '../domain/database.js';
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
import type { Queries } from './queries.js';
import { RateLimitsQueries } from './rate-limits/queries.js';
import { RefreshTokensQueries } from './refresh-tokens/queries.js';
import { SecurityEventsQueries } from './security-events/queries.js';
import { SessionsQueries } from './sessions/queries.js';
import { SignInsQueries } from './sign-ins/queries.js';
import { SigningKeysQueries } from './signing-keys/queries.js';
import type { Aggregates, DatabaseErrorListener, Store } from './types.js';
import { UpstreamIdentitiesQueries } from './upstream-identities/queries.js';
import { UpstreamsQueries } from './upstreams/queries.js';
import { UsersQueries } from './users/queries.js';

/** The pg connection under knex, as migrate() uses it. */
interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<unknown>;
}

/** The advisory lock key migrate() holds on PostgreSQL (any constant; this one spells "idp mig"). */
const MIGRATION_LOCK_KEY = 0x6964706d6967;

type QueriesClass<T> = abstract new (knex: Knex, dialect: Dialect) => T & Queries;

/**
 * Each aggregate's queries class (src/store/<aggregate>/queries.ts), under its name in the Store
 * (Aggregates, types.ts: the compiler holds the two lists together). Users and apps are abstract:
 * their hot paths are each database's (`fastPaths`).
 */
const AGGREGATE_QUERIES: { readonly [K in keyof Aggregates]: QueriesClass<Aggregates[K]> } = {
  users: UsersQueries,
  apps: AppsQueries,
  refreshTokens: RefreshTokensQueries,
  deviceAuthorizations: DeviceAuthorizationsQueries,
  signingKeys: SigningKeysQueries,
  upstreams: UpstreamsQueries,
  upstreamIdentities: UpstreamIdentitiesQueries,
  games: GamesQueries,
  grants: GrantsQueries,
  sessions: SessionsQueries,
  emailLinks: EmailLinksQueries,
  signIns: SignInsQueries,
  passkeys: PasskeysQueries,
  authenticatorApp: AuthenticatorAppQueries,
  moderation: ModerationQueries,
  securityEvents: SecurityEventsQueries,
  rateLimits: RateLimitsQueries,
  purge: PurgeQueries,
  pictures: PicturesQueries,
};

/** The aggregates' names, in the order of AGGREGATE_QUERIES. */
export const AGGREGATE_NAMES = Object.keys(AGGREGATE_QUERIES) as (keyof Aggregates)[];

/** A database's own queries for the aggregates whose hot paths it runs its own way (users and apps always). */
type FastPaths = Pick<Aggregates, 'users' | 'apps'> & Partial<Aggregates>;

/** A base class typed as holding every aggregate: KnexStore's constructor sets each (one list, AGGREGATE_QUERIES). */
const WithAggregates = class {} as new () => Readonly<Aggregates>;

/**
 * The Store in knex, on both databases: the lifecycle here, and each aggregate made from its
 * queries class (src/store/<aggregate>/queries.ts) or, for the hot paths, from the database's
 * own (src/store/<aggregate>/sqlite.ts, postgres.ts), which SqliteStore (sqlite-store.ts) and
 * PostgresStore (postgres-store.ts) pass in. openStoreAt (open.ts) picks which. Every lookup checks
 * its keys first (the input guard, rows.ts).
 */
export abstract class KnexStore extends WithAggregates implements Store {
  /** Told of every database error the outage guard (src/store/outage.ts) classifies. */
  errorListener: DatabaseErrorListener | undefined;

  constructor(
    /** Raw access for tests and scripts that look at rows; the service goes through the aggregates. */
    readonly knex: Knex,
    protected readonly dialect: Dialect,
    fastPaths: FastPaths,
  ) {
    super();
    for (const name of AGGREGATE_NAMES) {
      const own = fastPaths[name];
      // Users and apps always come from fastPaths (FastPaths requires them): the rest are concrete.
      const Concrete = AGGREGATE_QUERIES[name] as unknown as new (knex: Knex, dialect: Dialect) => unknown;
      Object.defineProperty(this, name, { value: own ?? new Concrete(knex, dialect), enumerable: true, configurable: true });
    }
  }

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
