/**
 * The Store: plain objects in and out. No knex types leave src/store. It is one interface per
 * aggregate (users, apps with their codes and tokens, games, grants, sessions, email links,
 * sign-ins, rate limits, the purge) plus its lifecycle; a caller may ask for only the part it uses.
 * Its methods are listed in methods.ts (checked by the compiler), and test/store.test.ts calls
 * every one on both databases.
 */
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
  /** When the current email address was proven by a link (ms since epoch); null while it is not. */
  emailVerifiedAt: number | null;
  /** When a claim of the OpenID `profile` scope last changed (the picture; names never change). */
  profileUpdatedAt: number;
  createdAt: number;
  /**
   * The suspension a moderator set (docs/moderation.md); null when none was. One whose `until` has
   * passed is over (src/moderation/suspension.ts activeSuspension), though it stays here.
   */
  suspension: SuspensionRecord | null;
  /** Why and when a moderator emptied the bio; null once the user writes a new one. */
  bioRemoved: { reason: string; removedAt: number } | null;
}

export interface SuspensionRecord {
  reason: string;
  since: number;
  /** When it ends by itself (ms since epoch); null: until lifted. */
  until: number | null;
}

export interface NewUser {
  name: string;
  email: string;
  passwordHash: string;
  /** Set for users whose address needs no proof (operator CLI, demo data); unverified when left out. */
  emailVerifiedAt?: number | null;
}

/** What an email link is for. */
export type EmailLinkPurpose = 'verify' | 'reset' | 'change';

/** A one-time link sent by mail, stored by the SHA-256 of its token only. */
export interface EmailLinkRecord {
  tokenHash: string;
  userId: number;
  purpose: EmailLinkPurpose;
  /** The address the link proves: the current one (verify) or the new one (change); null for reset. */
  email: string | null;
  expiresAt: number;
  usedAt: number | null;
  createdAt: number;
}

/** What following a link changes on its user, applied in the same transaction as using the link up. */
export interface EmailLinkEffect {
  passwordHash?: string;
  email?: string;
  emailVerifiedAt?: number;
  /** Apply only while the user's address is still this one (else nothing is written). */
  whileEmailIs?: string;
}

export type UserPatch = Partial<
  Pick<UserRecord, 'bio' | 'flairs' | 'equippedFlair' | 'playMinutes' | 'lastHeartbeat' | 'modLevel'>
>;

export interface AppRecord {
  clientId: string;
  /** SHA-256 of the client secret; null for a public app, which has none. */
  secretHash: string | null;
  /** A public client (no secret; every code needs a PKCE challenge). */
  public: boolean;
  ownerId: number;
  name: string;
  redirectUris: string[];
  /** Where the end-session endpoint may send the browser after signing out (exact match). */
  postLogoutRedirectUris: string[];
  createdAt: number;
}

export interface CodeRecord {
  codeHash: string;
  clientId: string;
  userId: number;
  scopes: string[];
  redirectUri: string | null;
  codeChallenge: string | null;
  /** The OpenID Connect request's nonce, repeated in the ID token; null when it sent none. */
  nonce: string | null;
  /** When the person signed in to the session the code was issued in (the ID token's auth_time). */
  authTime: number;
  /**
   * How the person signed in to that session (RFC 8176 values, the ID token's `amr`; its `acr`
   * follows from them); null when no sign-in stands behind the code (the operator CLI).
   */
  amr: string[] | null;
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

/**
 * What redeemCode did. `redeemed`: the code is claimed and its token stored. `expired`: an unused
 * code past its expiry; nothing written. `replayed`: the code was used already (by an earlier
 * exchange, or by a concurrent one that committed first) or is gone: every token issued from it is
 * revoked in the same transaction (RFC 6749 4.1.2), `revokedTokens` of them by this call.
 */
export type Redemption = { outcome: 'redeemed' } | { outcome: 'expired' } | { outcome: 'replayed'; revokedTokens: number };

export const REDEEMED: Redemption = Object.freeze({ outcome: 'redeemed' });
export const EXPIRED: Redemption = Object.freeze({ outcome: 'expired' });

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

/** An ID token signing key (src/oauth/keys.ts): its public half as a JWK, its private half only encrypted. */
export interface SigningKeyRecord {
  kid: string;
  alg: 'RS256';
  /** The public JWK, as JSON text. */
  publicJwk: string;
  /** The private JWK, encrypted: a compact JWE. */
  privateJwe: string;
  createdAt: number;
  /** When a newer key took over signing; null while this one signs. */
  retiredAt: number | null;
}

/** A token together with the user it belongs to: what whois needs (and no more), in one read. */
export interface TokenWithUser {
  token: Pick<TokenRecord, 'clientId' | 'userId' | 'scopes' | 'expiresAt' | 'revokedAt' | 'createdAt'>;
  user: Pick<UserRecord, 'id' | 'name' | 'email' | 'pfpTimestamp'>;
}

/** An app a user let use their account (remembered consent). */
export interface GrantRecord {
  userId: number;
  clientId: string;
  scopes: string[];
  /** When the user first granted the app anything. */
  createdAt: number;
  /** When the app last got a code for the user (with or without the consent page). */
  lastUsedAt: number;
}

/** A grant with what the account page shows of its app. */
export interface GrantWithApp extends GrantRecord {
  appName: string;
  ownerId: number;
  ownerName: string;
}

/** What the account page shows of a signed-in session; never its cookie value or hash. */
export interface SessionMeta {
  /** Random, stable for the session's life; the address of "sign out this session". */
  publicId: string;
  startedAt: number;
  lastSeenAt: number;
  userAgent: string | null;
}

/** One sign-in of a user, as the account page lists them. */
export interface SignInRecord {
  /** ms since epoch */
  at: number;
  ip: string;
  userAgent: string;
}

/** A passkey: a WebAuthn credential a user registered (src/accounts/passkeys.ts). */
export interface PasskeyRecord {
  /** The row's id: the passkey's address in the account API (not the credential id). */
  id: number;
  userId: number;
  /** The credential id, base64url; unique across users. */
  credentialId: string;
  /** The credential's COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen; 0 for an authenticator that keeps none. */
  counter: number;
  /** The transports the browser reported (`internal`, `hybrid`, `usb`, ...). */
  transports: string[];
  /** WebAuthn's backup eligibility: a `multiDevice` credential may be synced (a synced passkey). */
  deviceType: 'singleDevice' | 'multiDevice';
  /** Whether the credential was backed up (synced) when last seen. */
  backedUp: boolean;
  /** The name the person gave it (1 to 64 characters). */
  name: string;
  createdAt: number;
  /** When it last signed the person in; null until then. */
  lastUsedAt: number | null;
}

export type NewPasskey = Omit<PasskeyRecord, 'id' | 'lastUsedAt'>;

/** What a sign-in with a passkey saw of it (the counter and the backup flags). */
export interface PasskeyUse {
  counter: number;
  deviceType: PasskeyRecord['deviceType'];
  backedUp: boolean;
}
/** A user's authenticator app (TOTP): its seed only sealed, never in the clear. */
export interface TotpRecord {
  userId: number;
  /** The seed (base32), sealed: a compact JWE (src/security/sealed.ts). */
  secretJwe: string;
  /** When the first valid code switched it on; null while the setup waits for one. */
  confirmedAt: number | null;
  /** The 30-second time step of the last code accepted; a code of it or an earlier step is refused. */
  lastStep: number | null;
  createdAt: number;
}

export type ReportReason = 'spam' | 'harassment' | 'hate' | 'sexual' | 'impersonation' | 'other';
export type ReportOutcome = 'no_action' | 'bio_hidden' | 'picture_removed' | 'suspended';
export type ModerationActionKind = 'suspend' | 'lift_suspension' | 'hide_bio' | 'remove_picture' | 'set_mod_level' | 'close_report';

/** A user named by id and name (names never change, so a record keeps them past the account). */
export interface UserName {
  id: number;
  name: string;
}

export interface NewReport {
  reporterId: number;
  targetId: number;
  reason: ReportReason;
  text: string | null;
  createdAt: number;
}

/** A report with the names of its users. */
export interface ReportRecord {
  id: number;
  reporter: UserName;
  target: UserName;
  reason: ReportReason;
  text: string | null;
  createdAt: number;
  closedAt: number | null;
  /** Null while open, and when the moderator who closed it has deleted their account since. */
  closedBy: UserName | null;
  outcome: ReportOutcome | null;
}

/** One row of the record of moderator actions. */
export interface ModerationActionRecord {
  id: number;
  /** Null for the operator CLI. */
  moderator: UserName | null;
  target: UserName;
  action: ModerationActionKind;
  reason: string | null;
  until: number | null;
  modLevel: number | null;
  reportId: number | null;
  outcome: ReportOutcome | null;
  createdAt: number;
}

export type NewModerationAction = Omit<ModerationActionRecord, 'id'>;

/** A user as the moderators' search lists them. */
export interface ModerationUserSummaryRecord extends UserName {
  modLevel: number;
  /** Suspended at `now` of the search. */
  suspended: boolean;
  openReports: number;
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

/** Accounts: the users table (and the names of deleted accounts, which stay taken). */
export interface UserStore {
  countUsers(): Promise<number>;
  /** Throws UniqueViolation('name' | 'email'); a retired name (of a deleted account) counts as taken. */
  createUser(user: NewUser, now: number): Promise<UserRecord>;
  getUser(id: number): Promise<UserRecord | undefined>;
  /** Only the public fields (the users/info read: the hot path reads no more than it returns). */
  getPublicUser(id: number): Promise<PublicUserRecord | undefined>;
  /**
   * The user's pfpTimestamp alone (the picture route's check, which reads no more): null when the
   * user has no picture, undefined when there is no such user.
   */
  getPfpTimestamp(id: number): Promise<number | null | undefined>;
  getUserByName(name: string): Promise<UserRecord | undefined>;
  getUserByEmail(email: string): Promise<UserRecord | undefined>;
  updateUser(id: number, patch: UserPatch): Promise<UserRecord | undefined>;
  /**
   * Records a play heartbeat only if lastHeartbeat is still `expected` (compare-and-set, so two
   * concurrent heartbeats cannot both add the same minutes): sets lastHeartbeat to `now` and adds
   * `addMinutes` to playMinutes. Returns the updated user, or undefined when it lost the race.
   */
  recordHeartbeat(id: number, expected: number, now: number, addMinutes: number): Promise<UserRecord | undefined>;
  /**
   * Sets pfpTimestamp to `next` only if it is still `expected` (compare-and-set), so two
   * concurrent picture changes cannot both believe they won; raises pfpHighWater to `next`, and
   * sets profileUpdatedAt to `at` (default: `next`; unchanged when both are null).
   * Returns whether it was set.
   */
  swapPfpTimestamp(id: number, expected: number | null, next: number | null, at?: number): Promise<boolean>;
  /** Replaces the password hash; false when there is no such user. */
  setUserPassword(id: number, passwordHash: string): Promise<boolean>;
  /**
   * Deletes a user with everything of theirs in one transaction: grants, sessions, codes and
   * tokens, passkeys and second factors, reports by and on them, the apps and games they own (with
   * those apps' codes, tokens and grants), and retires the name. The record of moderator actions
   * naming them stays (the operator's). Returns the deleted user (its picture files are the caller's), or undefined.
   */
  deleteUser(id: number, now: number): Promise<UserRecord | undefined>;
}

/** OAuth clients with the authorization codes and access tokens issued to them. */
export interface AppStore {
  createApp(app: AppRecord): Promise<void>;
  getApp(clientId: string): Promise<AppRecord | undefined>;
  /** The apps a user owns, oldest first. */
  listAppsByOwner(ownerId: number): Promise<AppRecord[]>;
  setAppSecret(clientId: string, secretHash: string): Promise<boolean>;
  /** Deletes the app with its codes and tokens. */
  deleteApp(clientId: string): Promise<boolean>;

  createCode(code: CodeRecord): Promise<void>;
  getCode(codeHash: string): Promise<CodeRecord | undefined>;
  /** getApp and getCode in one read (the token exchange: one round trip on PostgreSQL). */
  getAppAndCode(clientId: string, codeHash: string): Promise<{ app: AppRecord | undefined; code: CodeRecord | undefined }>;
  /**
   * Atomically marks the code used, if it is unused and unexpired, and stores the token issued
   * from it; otherwise writes nothing, or, when the code was used already (another redemption got
   * there first), revokes the tokens issued from it. One transaction either way (Redemption).
   */
  redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<Redemption>;
  /** Revokes every token issued from the code. Returns how many were revoked. */
  revokeTokensOfCode(codeHash: string, now: number): Promise<number>;

  getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined>;
  /** getApp and getTokenWithUser in one read (introspection, revocation: one round trip on PostgreSQL). */
  getAppAndToken(clientId: string, tokenHash: string): Promise<{ app: AppRecord | undefined; tokenWithUser: TokenWithUser | undefined }>;
  /**
   * Revokes the token if it belongs to `clientId` and is not revoked yet; returns whether this
   * call revoked it.
   */
  revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean>;
}

/** The ID token signing keys every instance shares. */
export interface SigningKeyStore {
  /** Every key: those still signing first, then the retired; newest first within each. */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /**
   * Adds a key; with `retireOthersAt`, in the same transaction every other key still signing is
   * retired at that instant (a rotation).
   */
  addSigningKey(key: SigningKeyRecord, retireOthersAt: number | null): Promise<void>;
  /** Retires a key that still signs (one no secret can decrypt any more); false if none was. */
  retireSigningKey(kid: string, at: number): Promise<boolean>;
  /** Deletes the keys retired at or before `retiredBy`; returns their kids. */
  dropSigningKeys(retiredBy: number): Promise<string[]>;
}

/** The games users registered. */
export interface GameStore {
  createGame(game: NewGame): Promise<GameRecord>;
  getGame(id: number): Promise<GameWithAuthor | undefined>;
  /** Every game, newest first. */
  listGames(): Promise<GameWithAuthor[]>;
  /** The games a user registered, oldest first. */
  listGamesByAuthor(authorId: number): Promise<GameWithAuthor[]>;
}

/** Remembered consent: which apps a user let use their account, with which scopes. */
export interface GrantStore {
  getGrant(userId: number, clientId: string): Promise<GrantRecord | undefined>;
  /**
   * Creates the grant, or replaces its scopes and last use (keeping when it was first granted).
   */
  saveGrant(grant: Pick<GrantRecord, 'userId' | 'clientId' | 'scopes'>, now: number): Promise<void>;
  /** Records that the app got a code for the user now. */
  touchGrant(userId: number, clientId: string, now: number): Promise<void>;
  /** A user's grants with their apps, oldest first. */
  listGrants(userId: number): Promise<GrantWithApp[]>;
  /**
   * In one transaction: deletes the grant, revokes every live token of this user for this app
   * and deletes their unused codes. Returns false (changing nothing) when there was no grant.
   */
  revokeGrant(userId: number, clientId: string, now: number): Promise<boolean>;
}

/** Browser sessions, stored by the hash of their cookie's id. */
export interface SessionStore {
  /** Session data (JSON text) by the hash of its id; expired sessions are not returned. */
  getSession(idHash: string, now: number): Promise<string | undefined>;
  /**
   * Inserts or replaces a session; `userId` is whose it is (null while signed out); `meta` what
   * the account page lists of a signed-in session.
   */
  setSession(idHash: string, data: string, expiresAt: number, userId: number | null, meta?: SessionMeta | null): Promise<void>;
  /** A user's live sessions that have a public id, most recently seen first. */
  listUserSessions(userId: number, now: number): Promise<SessionMeta[]>;
  /** Ends one session of a user by its public id; false when the user has no such session. */
  deleteUserSession(userId: number, publicId: string): Promise<boolean>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of a user, except the one whose id hashes to `exceptIdHash`; returns how many. */
  deleteUserSessions(userId: number, exceptIdHash?: string): Promise<number>;
}

/** One-time links sent by mail (address verification, password reset, address change). */
interface EmailLinkStore {
  createEmailLink(link: EmailLinkRecord): Promise<void>;
  getEmailLink(tokenHash: string): Promise<EmailLinkRecord | undefined>;
  deleteEmailLink(tokenHash: string): Promise<void>;
  /** A user's links of one purpose, newest first (to tell a link replaced by a newer one). */
  listEmailLinks(userId: number, purpose: EmailLinkPurpose): Promise<EmailLinkRecord[]>;
  /**
   * In one transaction: marks the link used if it is unused and unexpired, applies `effect` to its
   * user, and marks used the user's other unused links whose purpose is in `voids`. Returns false,
   * having written nothing, when the link cannot be used (or `whileEmailIs` no longer holds).
   * Throws UniqueViolation('email') when the new address belongs to another user by now.
   */
  redeemEmailLink(tokenHash: string, now: number, effect: EmailLinkEffect, voids: readonly EmailLinkPurpose[]): Promise<boolean>;
}

/** The record of each user's recent sign-ins, shown on the account page. */
export interface SignInStore {
  /** Records a sign-in and keeps only the user's latest `keep` (older ones are deleted). */
  recordSignIn(userId: number, signIn: SignInRecord, keep: number): Promise<void>;
  /** A user's latest sign-ins, newest first. */
  listSignIns(userId: number, limit: number): Promise<SignInRecord[]>;
}

/** Each user's passkeys (WebAuthn credentials). */
interface PasskeyStore {
  /** Throws UniqueViolation('credential') when the credential id is registered already (to anyone). */
  createPasskey(passkey: NewPasskey): Promise<PasskeyRecord>;
  /** A user's passkeys, oldest first. */
  listPasskeys(userId: number): Promise<PasskeyRecord[]>;
  /** A passkey by its credential id (whoever's it is). */
  getPasskeyByCredentialId(credentialId: string): Promise<PasskeyRecord | undefined>;
  /** Renames one of the user's passkeys; undefined when the user has no passkey with this id. */
  renamePasskey(userId: number, id: number, name: string): Promise<PasskeyRecord | undefined>;
  /** Deletes one of the user's passkeys; false when the user has no passkey with this id. */
  deletePasskey(userId: number, id: number): Promise<boolean>;
  /**
   * Records a sign-in with the passkey: its counter, backup flags and last use, only if the
   * counter still allows it (WebAuthn's rule: the new counter is above the stored one, or both are
   * 0), checked in the same statement so two uses cannot both pass. Returns whether it was written.
   */
  recordPasskeyUse(id: number, use: PasskeyUse, now: number): Promise<boolean>;
}
/** Second factors: the authenticator app and its single-use recovery codes (stored by hash). */
interface SecondFactorStore {
  getTotp(userId: number): Promise<TotpRecord | undefined>;
  /**
   * Stores a setup waiting for its first code, replacing an earlier unconfirmed one. False,
   * writing nothing, while the user has a confirmed one (or no such user).
   */
  savePendingTotp(userId: number, secretJwe: string, now: number): Promise<boolean>;
  /**
   * In one transaction: switches on the pending setup whose seed is still `secretJwe`, records
   * `step` as used and replaces the user's recovery codes with these. False, writing nothing,
   * when there is no such pending setup (confirmed already, replaced, or switched off).
   */
  confirmTotp(userId: number, secretJwe: string, step: number, now: number, recoveryCodeHashes: readonly string[]): Promise<boolean>;
  /**
   * Records time step `step` as used if the factor is on and no code of this step or a later one
   * was accepted (compare-and-set: of two concurrent uses of one code, one wins). False otherwise.
   */
  useTotpStep(userId: number, step: number): Promise<boolean>;
  /** Deletes the user's authenticator app (confirmed or pending) and recovery codes; whether there was one. */
  deleteTotp(userId: number): Promise<boolean>;
  /** Replaces every recovery code of the user (used or not) with these hashes. */
  replaceRecoveryCodes(userId: number, codeHashes: readonly string[], now: number): Promise<void>;
  /** Marks the user's unused recovery code with this hash used; false when there is none (a code works once). */
  useRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean>;
  /** How many of the user's recovery codes are unused. */
  countRecoveryCodes(userId: number): Promise<number>;
  /** The hashes of the user's unused recovery codes. */
  listRecoveryCodeHashes(userId: number): Promise<string[]>;
  /** Every recovery code (any user, used or not) whose hash does not start with `current`: hashed the old way. */
  listLegacyRecoveryCodes(current: string): Promise<{ userId: number; codeHash: string }[]>;
  /** Replaces the hash `from` of one of the user's recovery codes with `to`, if it is still `from` (compare-and-set). */
  rewriteRecoveryCodeHash(userId: number, from: string, to: string): Promise<boolean>;
  /**
   * In one transaction: deletes every passkey, the authenticator app (confirmed or pending) and
   * the recovery codes of the user (an operator's reset); how many passkeys went and whether an
   * app did.
   */
  deleteFactors(userId: number): Promise<{ passkeys: number; totp: boolean }>;
}

/**
 * Moderation (docs/moderation.md): reports, what moderators do to accounts, and the record of it.
 * Every change to an account is written in one transaction with its row of the record.
 */
interface ModerationStore {
  /**
   * In one transaction: sets the user's suspension (replacing one in force), ends every session
   * of the user, revokes every live access token, deletes the unused codes, and records `action`.
   * False, writing nothing, when there is no such user.
   */
  suspendUser(userId: number, suspension: SuspensionRecord, action: NewModerationAction): Promise<boolean>;
  /** Clears a suspension in force at `now` and records `action`; false (nothing written) when none is. */
  liftSuspension(userId: number, now: number, action: NewModerationAction): Promise<boolean>;
  /** Empties a bio that is not empty, keeps why and when, and records `action`; false otherwise. */
  hideBio(userId: number, action: NewModerationAction): Promise<boolean>;
  /** Sets the user's modLevel and records `action`; false when there is no such user. */
  setModLevel(userId: number, modLevel: number, action: NewModerationAction): Promise<boolean>;
  /** Records an action whose change was made elsewhere (a picture removal). */
  addModerationAction(action: NewModerationAction): Promise<ModerationActionRecord>;
  /** The record, newest first: every action, or those on `targetId`; at most `limit` when given. */
  listModerationActions(filter: { targetId?: number; limit?: number }): Promise<ModerationActionRecord[]>;
  /** Throws UniqueViolation('report') while the reporter's earlier report on the user is open. */
  createReport(report: NewReport): Promise<ReportRecord>;
  getReport(id: number): Promise<ReportRecord | undefined>;
  /** Open reports, oldest first: all of them, or those on `targetId`. */
  listOpenReports(targetId?: number): Promise<ReportRecord[]>;
  /**
   * Closes an open report and records `action` (close_report) in one transaction; false, writing
   * nothing, when it is closed already (or there is no such report).
   */
  closeReport(id: number, closedBy: number, outcome: ReportOutcome, action: NewModerationAction): Promise<boolean>;
  /**
   * Users whose name starts with `prefix` (any case; `_` and `%` are plain characters), by name,
   * at most `limit`; or, with `id`, that user. Each with their open reports and whether suspended at `now`.
   */
  findUsers(query: { id: number } | { prefix: string }, now: number, limit: number): Promise<ModerationUserSummaryRecord[]>;
}

export interface RateLimitStore {
  /**
   * A limiter counting in the database (table rate_limits), so every service instance on the
   * same database shares one count per key.
   */
  rateLimiter(rule: RateLimitRule): RateLimiterAbstract;
}

/** Deleting what has expired, across the tables whose rows expire. */
export interface PurgeStore {
  /**
   * Deletes at most `limit` expired rows of each of tokens, codes and sessions. Several instances
   * may run it at once: on PostgreSQL rows another purge holds are skipped, not waited for.
   */
  purgeExpired(batch: PurgeBatch): Promise<PurgeCounts>;
}

/**
 * Profile pictures stored in the database (PostgreSQL: docs/decisions.md#pictures-in-postgresql),
 * one row per user, pfpTimestamp and size. A SQLite database keeps pictures in PICTURES_DIR and
 * never calls these.
 */
export interface PictureRowStore {
  /** Inserts all sizes of (userId, ts) in one statement; false (nothing written) when any exists. */
  insertPictures(userId: number, ts: number, images: Record<string, Buffer>, now: number): Promise<boolean>;
  getPicture(userId: number, ts: number, size: string): Promise<Buffer | undefined>;
  deletePictures(userId: number, ts: number): Promise<void>;
  /** Deletes rows written before `before` that no user's current pfpTimestamp points at; returns how many. */
  sweepPictures(before: number): Promise<number>;
  /** Users whose current pfpTimestamp has no rows (pictures still in a PICTURES_DIR, or lost). */
  usersWithoutPictureRows(): Promise<{ id: number; pfpTimestamp: number }[]>;
}

/** The whole store: every aggregate's methods on one database. */
export interface Store
  extends StoreLifecycle,
    UserStore,
    AppStore,
    SigningKeyStore,
    GameStore,
    GrantStore,
    SessionStore,
    EmailLinkStore,
    SignInStore,
    PasskeyStore,
    SecondFactorStore,
    ModerationStore,
    RateLimitStore,
    PurgeStore,
    PictureRowStore {}
