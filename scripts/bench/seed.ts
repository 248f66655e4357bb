/** Seeds a benchmark database: N users (fast path, prepared inserts), an app, a picture, codes, tokens and refresh tokens. */
import Database from 'better-sqlite3';
import cliProgress from 'cli-progress';
import pg from 'pg';
import sharp from 'sharp';
import { hashSecret, randomSecret } from '../../src/security/secrets.js';
import { PictureFiles, picturesFor, setPicture } from '../../src/pictures/pictures.js';
import { openStoreAt } from '../../src/store/open.js';

export const BENCH_CLIENT = { id: 'bench_client', secret: 'bench-secret' };

interface Seeded {
  users: number;
  pictureUserId: number;
  pictureTs: number;
  defaultUserId: number;
}

/** Creates the schema through the real migrations, then bulk-inserts users in one transaction per 20k. */
export async function seedDatabase(file: string, picturesDir: string, users: number, showProgress: boolean): Promise<Seeded> {
  const store = openStoreAt(file);
  await store.migrate();
  await store.close();

  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const insert = db.prepare(
    `insert into users (name, name_key, email, password_hash, bio, flairs, equipped_flair, play_minutes, last_heartbeat, created_at)
     values (?, ?, ?, 'scrypt$bench$not-a-real-hash', ?, '["none","veteran"]', 'veteran', ?, ?, ?)`,
  );
  const now = Date.now();
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const name = `user${i}`;
      insert.run(name, name, `${name}@bench.example`, `Bio of ${name}`, i % 5000, now - (i % 86_400_000), now);
    }
  });
  const bar = showProgress ? new cliProgress.SingleBar({ format: 'seeding {bar} {value}/{total} users' }, cliProgress.Presets.shades_classic) : undefined;
  bar?.start(users, 0);
  const step = 20_000;
  for (let from = 1; from <= users; from += step) {
    const to = Math.min(users + 1, from + step);
    batch(from, to);
    bar?.update(to - 1);
  }
  bar?.stop();
  // With the refresh grant too: the refresh case's tokens are the bench client's (the exchange's codes ask no offline_access).
  db.prepare(
    `insert into apps (client_id, secret_hash, owner_id, name, redirect_uris, grant_types, created_at) values (?, ?, 1, 'Bench', '["https://bench.example/cb"]', 'authorization_code refresh_token', ?)`,
  ).run(
    BENCH_CLIENT.id,
    hashSecret(BENCH_CLIENT.secret),
    now,
  );
  db.close();

  const pictureStore = openStoreAt(file);
  await pictureStore.migrate();
  const photo = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#4a7bd0' } }).jpeg().toBuffer();
  const pictureTs = await setPicture({ store: pictureStore, pictures: new PictureFiles(picturesDir), now: Date.now }, 1, photo);
  await pictureStore.close();
  return { users, pictureUserId: 1, pictureTs, defaultUserId: 2 };
}

/** Pre-issues `count` authorization codes (userinfo) for the bench client; returns the plain codes. */
export function issueCodes(file: string, count: number, scope = 'userinfo'): string[] {
  const db = new Database(file);
  const insert = db.prepare(
    `insert into auth_codes (code_hash, client_id, user_id, scopes, expires_at, created_at, auth_time) values (?, ?, ?, '${scope}', ?, ?, ?)`,
  );
  const codes: string[] = [];
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const code = randomSecret(32);
      codes.push(code);
      // Valid for an hour: the benchmark must not measure expiry.
      insert.run(hashSecret(code), BENCH_CLIENT.id, 1 + (i % 1000), now + 3_600_000, now, now);
    }
  })();
  db.close();
  return codes;
}

/**
 * Pre-issues `count` live access tokens (userinfo, an hour to live) for the bench client, for
 * the revocation and introspection cases; returns the plain tokens.
 */
export function issueTokens(file: string, count: number): string[] {
  const db = new Database(file);
  const insert = db.prepare(
    `insert into access_tokens (token_hash, client_id, user_id, scopes, code_hash, expires_at, revoked_at, created_at) values (?, ?, ?, 'userinfo', null, ?, null, ?)`,
  );
  const tokens: string[] = [];
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const token = randomSecret(32);
      tokens.push(token);
      insert.run(hashSecret(token), BENCH_CLIENT.id, 1 + (i % 1000), now + 3_600_000, now);
    }
  })();
  db.close();
  return tokens;
}

/**
 * Pre-issues `count` live refresh tokens (`userinfo offline_access`, as an exchange of a code with
 * offline_access leaves them) for the bench client, each the only one of its family, valid (idle
 * and absolute) for an hour; returns the plain tokens. The rows are what the service writes:
 * SHA-256 hashes of the token, of the family's code and of the access token issued with it.
 */
export function issueRefreshTokens(file: string, count: number, scope = 'userinfo offline_access'): string[] {
  const db = new Database(file);
  const insert = db.prepare(
    `insert into refresh_tokens (token_hash, family_id, client_id, user_id, scopes, auth_time, amr, access_token_hash, family_expires_at, expires_at, used_at, revoked_at, created_at)
     values (?, ?, ?, ?, '${scope}', ?, 'pwd', ?, ?, ?, null, null, ?)`,
  );
  const tokens: string[] = [];
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const token = randomSecret(32);
      tokens.push(token);
      // Valid for an hour: the benchmark must not measure expiry.
      insert.run(hashSecret(token), hashSecret(randomSecret(32)), BENCH_CLIENT.id, 1 + (i % 1000), now, hashSecret(randomSecret(32)), now + 3_600_000, now + 3_600_000, now);
    }
  })();
  db.close();
  return tokens;
}

/** How many of each kind seedPostgres makes. */
interface PostgresSeedCounts {
  /** Codes for the service's token exchange. */
  codes: number;
  /** Codes for the two-write baseline (`pg-exchange`), none of them the service's. */
  baselineCodes: number;
  /** Live tokens (an hour to live): one for whois and introspection, the rest for revocation. */
  tokens: number;
  /** Live refresh tokens (an hour to live) for the refresh grant. */
  refreshTokens: number;
}

interface PostgresSeed {
  url: string;
  codes: string[];
  baselineCodes: string[];
  /** For whois and introspection (never revoked). */
  token: string;
  /** For revocation, one each. */
  tokens: string[];
  /** For the refresh grant, one each. */
  refreshTokens: string[];
  pictureTs: number;
  drop: () => Promise<void>;
}

/**
 * Plain values made up by a formula (43 characters, like a real code or token), so the rows are
 * made by PostgreSQL itself from the same formula (generate_series, sha256): hundreds of
 * thousands in seconds, where sending them from here took minutes.
 */
const benchValue = (kind: 'code' | 'token' | 'refresh', i: number): string => `bench-${kind}-${String(i).padStart(43 - 7 - kind.length, '0')}`;
const benchValueSql = (kind: 'code' | 'token' | 'refresh'): string => `'bench-${kind}-' || lpad(i::text, ${43 - 7 - kind.length}, '0')`;
const sha256Sql = (value: string): string => `encode(sha256(convert_to(${value}, 'UTF8')), 'hex')`;

/**
 * A PostgreSQL database of its own on the cluster at `serverUrl` (the throwaway one of
 * TEST_POSTGRES_URL), migrated, with 1,000 users, the bench client (with the refresh grant), its
 * codes, live tokens and refresh tokens, and user 1's picture; dropped by `drop`.
 */
export async function seedPostgres(serverUrl: string, counts: PostgresSeedCounts): Promise<PostgresSeed> {
  const name = `idp_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const store = openStoreAt(url.toString());
  await store.migrate();
  const now = Date.now();
  const users = Array.from({ length: 1000 }, (_, i) => ({
    name: `user${i + 1}`,
    name_key: `user${i + 1}`,
    email: `user${i + 1}@bench.example`,
    password_hash: 'scrypt$bench$not-a-real-hash',
    created_at: now,
  }));
  await store.knex.batchInsert('users', users, 1000);
  await store.knex('apps').insert({
    client_id: BENCH_CLIENT.id,
    secret_hash: hashSecret(BENCH_CLIENT.secret),
    owner_id: 1,
    name: 'Bench',
    redirect_uris: '["https://bench.example/cb"]',
    grant_types: 'authorization_code refresh_token',
    created_at: now,
  });
  // Valid for an hour: the benchmark must not measure expiry.
  const allCodes = counts.codes + counts.baselineCodes;
  await store.knex.raw(
    `insert into auth_codes (code_hash, client_id, user_id, scopes, expires_at, created_at, auth_time)
     select ${sha256Sql(benchValueSql('code'))}, ?, 1 + i % 1000, 'userinfo', ?, ?, ? from generate_series(0, ? - 1) as i`,
    [BENCH_CLIENT.id, now + 3_600_000, now, now, allCodes],
  );
  await store.knex.raw(
    `insert into access_tokens (token_hash, client_id, user_id, scopes, code_hash, expires_at, revoked_at, created_at)
     select ${sha256Sql(benchValueSql('token'))}, ?, 1 + i % 1000, 'userinfo', null, ?, null, ? from generate_series(0, ? - 1) as i`,
    [BENCH_CLIENT.id, now + 3_600_000, now, counts.tokens + 1],
  );
  // Each the only token of its family (family_id and access_token_hash: hashes of values of their own).
  await store.knex.raw(
    `insert into refresh_tokens (token_hash, family_id, client_id, user_id, scopes, auth_time, amr, access_token_hash, family_expires_at, expires_at, used_at, revoked_at, created_at)
     select ${sha256Sql(benchValueSql('refresh'))}, ${sha256Sql(`'family-' || ${benchValueSql('refresh')}`)}, ?, 1 + i % 1000, 'userinfo offline_access', ?, 'pwd',
       ${sha256Sql(`'access-' || ${benchValueSql('refresh')}`)}, ?, ?, null, null, ? from generate_series(0, ? - 1) as i`,
    [BENCH_CLIENT.id, now, now + 3_600_000, now + 3_600_000, now, counts.refreshTokens],
  );
  await store.knex.raw('analyze');
  if (hashSecret(benchValue('code', 0)) !== (await store.apps.getCode(hashSecret(benchValue('code', 0))))?.codeHash) throw new Error('the seeded codes do not hash as the service hashes');
  if (counts.refreshTokens > 0 && !(await store.refreshTokens.getRefreshToken(hashSecret(benchValue('refresh', 0))))) throw new Error('the seeded refresh tokens do not hash as the service hashes');
  const values = (kind: 'code' | 'token' | 'refresh', from: number, count: number) => Array.from({ length: count }, (_, i) => benchValue(kind, from + i));
  // User 1's picture, stored in the database (the same image as the SQLite seed's).
  const photo = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#4a7bd0' } }).jpeg().toBuffer();
  const pictures = picturesFor({ database: { dialect: 'postgres', url: url.toString() }, picturesDir: '' }, store, Date.now);
  const pictureTs = await setPicture({ store, pictures, now: Date.now }, 1, photo);
  await store.close();
  return {
    url: url.toString(),
    codes: values('code', 0, counts.codes),
    baselineCodes: values('code', counts.codes, counts.baselineCodes),
    token: benchValue('token', counts.tokens),
    tokens: values('token', 0, counts.tokens),
    refreshTokens: values('refresh', 0, counts.refreshTokens),
    pictureTs,
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
