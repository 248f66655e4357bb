/** The Store: plain objects in and out. No knex types leave src/store. */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** The fields of a user anyone may read (users/info): no email, password or bookkeeping. */
export type PublicUserRecord = Pick<
  UserRecord,
  'id' | 'name' | 'bio' | 'flairs' | 'equippedFlair' | 'playMinutes' | 'lastHeartbeat' | 'modLevel' | 'pfpTimestamp'
>;

export interface UserRecord {
  id: number;
  name: string;
  email: string;
  passwordHash: string;
  bio: string;
  flairs: string[];
  equippedFlair: string;
  playMinutes: number;
  lastHeartbeat: number;
  modLevel: number;
  /** ms since epoch; null when the user has no picture. */
  pfpTimestamp: number | null;
  /** The largest pfpTimestamp this user ever had (0 if none); it survives a removal. */
  pfpHighWater: number;
  createdAt: number;
}

export interface NewUser {
  name: string;
  email: string;
  passwordHash: string;
}

export type UserPatch = Partial<
  Pick<UserRecord, 'bio' | 'flairs' | 'equippedFlair' | 'playMinutes' | 'lastHeartbeat' | 'modLevel'>
>;

export interface AppRecord {
  clientId: string;
  secretHash: string;
  ownerId: number;
  name: string;
  redirectUris: string[];
  createdAt: number;
}

export interface CodeRecord {
  codeHash: string;
  clientId: string;
  userId: number;
  scopes: string[];
  redirectUri: string | null;
  codeChallenge: string | null;
  expiresAt: number;
  usedAt: number | null;
  createdAt: number;
}

export interface TokenRecord {
  tokenHash: string;
  clientId: string;
  userId: number;
  scopes: string[];
  codeHash: string | null;
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}

export interface GameRecord {
  id: number;
  authorId: number;
  title: string;
  /** Where the game is hosted: the play page frames this address. */
  url: string;
  createdAt: number;
}

export type NewGame = Omit<GameRecord, 'id'>;

/** A game with its author's name, as lists and pages show it. */
export interface GameWithAuthor extends GameRecord {
  authorName: string;
}

/** A token together with the user it belongs to: what whois needs (and no more), in one read. */
export interface TokenWithUser {
  token: Pick<TokenRecord, 'clientId' | 'userId' | 'scopes' | 'expiresAt' | 'revokedAt' | 'createdAt'>;
  user: Pick<UserRecord, 'id' | 'name' | 'email' | 'pfpTimestamp'>;
}

/** One bounded round of the purge: rows past these instants go, at most `limit` per table. */
export interface PurgeBatch {
  /** Tokens whose expires_at is at or before this. */
  tokensExpiredBy: number;
  /** Codes whose expires_at is at or before this (earlier than now: see src/purge/purge.ts). */
  codesExpiredBy: number;
  /** Sessions whose expires_at is at or before this. */
  sessionsExpiredBy: number;
  limit: number;
}

/** How many rows of each kind a purge deleted. */
export interface PurgeCounts {
  tokens: number;
  codes: number;
  sessions: number;
}

export class UniqueViolation extends Error {
  constructor(readonly field: string) {
    super(`${field} is already taken`);
  }
}

/** One rate limit: `points` events per `seconds`, counted under keys starting with `keyPrefix`. */
export interface RateLimitRule {
  keyPrefix: string;
  points: number;
  seconds: number;
}

export interface Store {
  /** Runs pending migrations. */
  migrate(): Promise<void>;
  /**
   * A limiter counting in the database (table rate_limits), so every service instance on the
   * same database shares one count per key.
   */
  rateLimiter(rule: RateLimitRule): RateLimiterAbstract;
  ping(): Promise<void>;
  close(): Promise<void>;

  countUsers(): Promise<number>;
  /** Throws UniqueViolation('name' | 'email'). */
  createUser(user: NewUser, now: number): Promise<UserRecord>;
  getUser(id: number): Promise<UserRecord | undefined>;
  /** Only the public fields (the users/info read: the hot path reads no more than it returns). */
  getPublicUser(id: number): Promise<PublicUserRecord | undefined>;
  getUserByName(name: string): Promise<UserRecord | undefined>;
  getUserByEmail(email: string): Promise<UserRecord | undefined>;
  updateUser(id: number, patch: UserPatch): Promise<UserRecord | undefined>;
  /**
   * Sets pfpTimestamp to `next` only if it is still `expected` (compare-and-set), so two
   * concurrent picture changes cannot both believe they won; raises pfpHighWater to `next`.
   * Returns whether it was set.
   */
  /**
   * Records a play heartbeat only if lastHeartbeat is still `expected` (compare-and-set, so two
   * concurrent heartbeats cannot both add the same minutes): sets lastHeartbeat to `now` and adds
   * `addMinutes` to playMinutes. Returns the updated user, or undefined when it lost the race.
   */
  recordHeartbeat(id: number, expected: number, now: number, addMinutes: number): Promise<UserRecord | undefined>;
  swapPfpTimestamp(id: number, expected: number | null, next: number | null): Promise<boolean>;

  createApp(app: AppRecord): Promise<void>;
  getApp(clientId: string): Promise<AppRecord | undefined>;
  /** The apps a user owns, oldest first. */
  listAppsByOwner(ownerId: number): Promise<AppRecord[]>;
  setAppSecret(clientId: string, secretHash: string): Promise<boolean>;
  /** Deletes the app with its codes and tokens. */
  deleteApp(clientId: string): Promise<boolean>;

  createCode(code: CodeRecord): Promise<void>;
  getCode(codeHash: string): Promise<CodeRecord | undefined>;
  /**
   * Atomically marks the code used, if it is unused and unexpired, and stores the token issued
   * from it. Returns false when another redemption got there first (nothing is written then).
   */
  redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<boolean>;
  /** Revokes every token issued from the code. Returns how many were revoked. */
  revokeTokensOfCode(codeHash: string, now: number): Promise<number>;

  getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined>;
  /**
   * Revokes the token if it belongs to `clientId` and is not revoked yet; returns whether this
   * call revoked it.
   */
  revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean>;
  /**
   * Deletes at most `limit` expired rows of each of tokens, codes and sessions. Several instances
   * may run it at once: on PostgreSQL rows another purge holds are skipped, not waited for.
   */
  purgeExpired(batch: PurgeBatch): Promise<PurgeCounts>;

  createGame(game: NewGame): Promise<GameRecord>;
  getGame(id: number): Promise<GameWithAuthor | undefined>;
  /** Every game, newest first. */
  listGames(): Promise<GameWithAuthor[]>;

  /** Session data (JSON text) by the hash of its id; expired sessions are not returned. */
  getSession(idHash: string, now: number): Promise<string | undefined>;
  /** Inserts or replaces a session; `userId` is whose it is (null while signed out). */
  setSession(idHash: string, data: string, expiresAt: number, userId: number | null): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of a user, except the one whose id hashes to `exceptIdHash`; returns how many. */
  deleteUserSessions(userId: number, exceptIdHash?: string): Promise<number>;
  /** Deletes expired sessions; returns how many. */
  deleteExpiredSessions(now: number): Promise<number>;
}
