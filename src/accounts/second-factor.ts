/**
 * The second factor of sign-in, what the second step asks: a code of the authenticator app (TOTP,
 * RFC 6238: SHA-1, 6 digits, 30 seconds, by otpauth) or one of its recovery codes; switching the
 * app on and off, and replacing the codes (docs/account.md#authenticator-app-and-recovery-codes).
 *
 * - The seed is kept only sealed (src/security/sealed.ts), while the setup waits for its first
 *   code as after: the database alone gives no one the codes.
 * - A code is taken once: the time step of the last accepted code is stored, and a code of that
 *   step or an earlier one is refused (docs/decisions.md#authenticator-codes-are-taken-once).
 * - Recovery codes are random, shown once, stored only as a keyed hash (recoveryCodeHash), and
 *   each works once.
 * - Wrong codes count under limits of their own (docs/decisions.md#rate-limits), never reset by a
 *   right password: per owed step (over it the step ends) and per account, each guess counted
 *   before it is checked.
 * - Switching the app on takes the password (or a recent passkey confirmation) first, as switching
 *   it off does, and ends the account's other sessions.
 */
import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Logger } from 'pino';
import QRCode from 'qrcode';
import type { Audit } from '../audit.js';
import type { Config } from '../config.js';
import { Conflict, InvalidInput, RateLimited, Unauthenticated, Unavailable } from '../domain/errors.js';
import { PRODUCT_NAME } from '../domain/product.js';
import { hashSecret } from '../security/secrets.js';
import { accountKey, attempt } from '../security/rate-limit.js';
import { seal, unseal } from '../security/sealed.js';
import type { TotpRecord } from '../domain/authenticator-app.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import type { UserRecord } from '../domain/users.js';
import type { Store } from '../store/types.js';
import type { AccountDeps } from './accounts.js';
import { RECOVERY_CODE_HASHING, slowHash, type ScryptParams } from './passwords.js';
import { confirmPasswordOrPasskey, type Confirmation } from './confirmation.js';
import { countSignInAttempt } from './sign-in-attempts.js';

interface SecondFactorDeps extends AccountDeps {
  audit: Audit;
  /** SESSION_SECRET's values: the first seals, any opens. */
  secrets: readonly string[];
  /** Whose codes the authenticator app says these are: the product name (src/domain/product.ts). */
  issuer: string;
  logger: Pick<Logger, 'warn'>;
}

/**
 * What the second factor needs of the service's dependencies: SESSION_SECRET seals, and the
 * issuer is the name the person knows the service by (as the pages' brand), not a host name
 * such as "localhost" that says nothing in a list of accounts.
 */
export function secondFactorDeps(deps: Omit<SecondFactorDeps, 'secrets' | 'issuer'> & { config: Pick<Config, 'sessionSecrets'> }): SecondFactorDeps {
  return { ...deps, secrets: deps.config.sessionSecrets, issuer: PRODUCT_NAME };
}

const SEED_INFO = 'identity-profile-service: authenticator app seed encryption';
const PERIOD_SECONDS = 30;
/** Codes of the step before and after the current one are taken too (clocks differ a little). */
const WINDOW = 1;
const RECOVERY_CODES = 10;
/** No 0/o, 1/l/i: read off a screen or paper without doubt. 31 symbols, 10 of them: 49 bits. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_LENGTH = 10;

function totpOf(deps: Pick<SecondFactorDeps, 'issuer'>, userName: string, seed: string): TOTP {
  return new TOTP({ issuer: deps.issuer, label: userName, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(seed) });
}

/** A recovery code as it is shown: two groups of five. */
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < RECOVERY_LENGTH; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** What is hashed of a recovery code: as typed, without case, spaces or dashes. */
function normalRecoveryCode(typed: string): string {
  return typed.toLowerCase().replace(/[\s-]/g, '');
}

/**
 * Recovery codes are kept as scrypt of their SHA-256, one salt per set: a copy of
 * the database alone makes an offline search of their ~49 bits hopeless, and no server secret is
 * needed to check them, so they stay the way out when SESSION_SECRET lost the key that sealed the
 * app's seed. The SHA-256 is what was stored before: upgradeRecoveryCodes re-hashes those rows
 * without knowing the codes. The cost: RECOVERY_CODE_HASHING, unless a test injects a lower one.
 */
const SLOW_HASH_PREFIX = 'scrypt$';

async function newRecoveryCodes(params: ScryptParams = RECOVERY_CODE_HASHING): Promise<{ codes: string[]; hashes: string[] }> {
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  const first = await slowHash(hashSecret(normalRecoveryCode(codes[0]!)), params);
  const rest = await Promise.all(codes.slice(1).map((c) => slowHash(hashSecret(normalRecoveryCode(c)), params, first)));
  return { codes, hashes: [first, ...rest] };
}

/**
 * Re-hashes recovery codes stored as a plain SHA-256 (before slow hashes), one salt per user;
 * run at every start, it finds nothing to do after the first. Each row is compare-and-set, so
 * instances starting together write each once. Returns how many rows it rewrote.
 */
export async function upgradeRecoveryCodes(store: Pick<Store, 'authenticatorApp'>): Promise<number> {
  const byUser = new Map<number, string[]>();
  for (const row of await store.authenticatorApp.listLegacyRecoveryCodes(SLOW_HASH_PREFIX)) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row.codeHash]);
  let rewritten = 0;
  for (const [userId, hashes] of byUser) {
    let like: string | undefined;
    for (const old of hashes) {
      const next = await slowHash(old, RECOVERY_CODE_HASHING, like);
      like ??= next;
      if (await store.authenticatorApp.rewriteRecoveryCodeHash(userId, old, next)) rewritten++;
    }
  }
  return rewritten;
}

/**
 * The one rule of "the authenticator app is on": its setup took a first valid code. A setup still
 * waiting for one is off (it asks nothing at sign-in, and has no recovery codes).
 */
export function isAuthenticatorAppOn(app: TotpRecord | undefined): app is TotpRecord & { confirmedAt: number } {
  return app !== undefined && app.confirmedAt !== null;
}

/** Whether the user's authenticator app is on: then a right password owes a second step. */
export async function authenticatorAppOn(store: Pick<Store, 'authenticatorApp'>, userId: number): Promise<boolean> {
  return isAuthenticatorAppOn(await store.authenticatorApp.getTotp(userId));
}

interface AuthenticatorAppStatus {
  enabled: boolean;
  /** Unused recovery codes (0 while switched off). */
  recoveryCodesLeft: number;
}

export async function authenticatorAppStatus(store: Pick<Store, 'authenticatorApp'>, userId: number): Promise<AuthenticatorAppStatus> {
  const enabled = await authenticatorAppOn(store, userId);
  return { enabled, recoveryCodesLeft: enabled ? await store.authenticatorApp.countRecoveryCodes(userId) : 0 };
}

const ALREADY_ON = 'An authenticator app is already switched on; switch it off first';

/**
 * Starts (or starts over) setting up an authenticator app, once the person confirmed who they
 * are (the password, or a recent passkey confirmation: a stolen session alone must not put its
 * own phone on the account): a new seed, kept sealed until the first code confirms it. Returns the
 * otpauth:// URI and a QR code of it (an SVG data: URL).
 */
export async function startTotpSetup(deps: SecondFactorDeps, user: UserRecord, proof: Confirmation, ip: string): Promise<{ uri: string; qrImage: string }> {
  if (await authenticatorAppOn(deps.store, user.id)) throw new Conflict(ALREADY_ON);
  await confirmPasswordOrPasskey(deps, user, proof, ip);
  const seed = new Secret({ size: 20 }).base32;
  const saved = await deps.store.authenticatorApp.savePendingTotp(user.id, await seal(deps.secrets[0]!, SEED_INFO, seed), deps.now());
  if (!saved) throw new Conflict(ALREADY_ON);
  const uri = totpOf(deps, user.name, seed).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return { uri, qrImage: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** The time step a 6-digit code is valid for now, if it is; undefined when it is not. */
function stepOf(totp: TOTP, code: string, now: number): number | undefined {
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : TOTP.counter({ period: PERIOD_SECONDS, timestamp: now }) + delta;
}

/**
 * Why a 6-digit code cannot be checked: the app's seed is sealed under a key SESSION_SECRET no
 * longer has (SESSION_SECRET set anew, or the data folder's kept key lost). What is lost is the
 * seed, for good; the recovery codes need no key (recoveryCodeHash), so the second-step page takes
 * one from the same form, and the app is set up again once signed in.
 */
export class SeedUnreadable extends Unavailable {
  constructor() {
    super(
      "Your authenticator app's codes cannot be checked any more: the key this service protected the app's secret with has changed, so that secret can no longer be read. A recovery code still works: type one below. Once signed in, switch the authenticator app off and set it up again on your account page.",
    );
  }
}

/**
 * The seed, opened with any SESSION_SECRET value. None opens it only when every value that sealed
 * it is gone (docs/operations.md#rotating-the-session-key): logged as a warning with the account
 * and the reason (never the sealed value), and `unreadable()` thrown.
 */
async function openSeed(deps: SecondFactorDeps, userId: number, jwe: string, unreadable: () => Error): Promise<string> {
  const seed = await unseal(deps.secrets, SEED_INFO, jwe);
  if (seed === undefined) {
    deps.logger.warn(
      { userId, reason: 'seed_unreadable' },
      "authenticator app seed unreadable: no SESSION_SECRET key opens it (the key changed); its codes cannot be checked, recovery codes still sign in, and the app must be set up again",
    );
    throw unreadable();
  }
  return seed;
}

const SIX_DIGITS = /^\d{6}$/;

/**
 * Switches the pending setup on with its first valid code; returns the recovery codes (shown
 * once). Every other session of the account ends (all but `keepSessionIdHash`), with what hangs
 * off them (the security event `second_factor_enabled`): they were signed in without the app, and
 * the person who just asked for it expects every way in to need it.
 * Wrong codes count per account under a key of their own (a setup's guesses open nothing).
 */
export async function confirmTotpSetup(
  deps: SecondFactorDeps,
  user: UserRecord,
  code: string,
  ip: string,
  keepSessionIdHash: string | undefined,
): Promise<{ recoveryCodes: string[]; endedSessions: number }> {
  const pending = await deps.store.authenticatorApp.getTotp(user.id);
  if (!pending || isAuthenticatorAppOn(pending)) throw new Conflict('Start setting up an authenticator app first');
  await deps.limits.signInIp.consume(ip);
  const step = await attempt(deps.limits.secondStepAccount, `setup:${user.id}`, async () => {
    const typed = code.replace(/\s/g, '');
    const seed = SIX_DIGITS.test(typed) ? await openSeed(deps, user.id, pending.secretJwe, () => new Conflict('This setup cannot be finished any more; start again')) : undefined;
    const valid = seed === undefined ? undefined : stepOf(totpOf(deps, user.name, seed), typed, deps.now());
    if (valid === undefined) throw new InvalidInput('That code is not right: type the 6 digits the app shows now');
    return valid;
  });
  const { codes, hashes } = await newRecoveryCodes(deps.recoveryCodeHashing);
  const ended = await deps.store.authenticatorApp.confirmTotp(user.id, pending.secretJwe, step, deps.now(), hashes, SECURITY_EVENTS.second_factor_enabled, keepSessionIdHash);
  if (!ended) throw new Conflict('The setup changed meanwhile; start again');
  deps.audit('second_factor_changed', { userId: user.id, change: 'totp_enabled', endedSessions: ended.sessions });
  return { recoveryCodes: codes, endedSessions: ended.sessions };
}

/** Switches the authenticator app off (the password or a passkey again first); its recovery codes go too. */
export async function disableTotp(deps: SecondFactorDeps, user: UserRecord, proof: Confirmation, ip: string): Promise<void> {
  if (!(await authenticatorAppOn(deps.store, user.id))) throw new Conflict('No authenticator app is switched on');
  await confirmPasswordOrPasskey(deps, user, proof, ip);
  await deps.store.authenticatorApp.deleteTotp(user.id, SECURITY_EVENTS.second_factor_disabled, deps.now());
  deps.audit('second_factor_changed', { userId: user.id, change: 'totp_disabled' });
}

/** A new set of recovery codes (the password or a passkey again first); the old set stops working. */
export async function replaceRecoveryCodes(deps: SecondFactorDeps, user: UserRecord, proof: Confirmation, ip: string): Promise<string[]> {
  if (!(await authenticatorAppOn(deps.store, user.id))) throw new Conflict('Switch on an authenticator app first');
  await confirmPasswordOrPasskey(deps, user, proof, ip);
  const { codes, hashes } = await newRecoveryCodes(deps.recoveryCodeHashing);
  await deps.store.authenticatorApp.replaceRecoveryCodes(user.id, hashes, deps.now());
  deps.audit('second_factor_changed', { userId: user.id, change: 'recovery_codes_replaced' });
  return codes;
}

/** Whether two scrypt hashes share their parameters and salt (everything but the hash itself). */
function sameSalt(a: string, b: string): boolean {
  return a.slice(0, a.lastIndexOf('$')) === b.slice(0, b.lastIndexOf('$'));
}

/** Why a second step ended before its code came: over its own limit of wrong codes. */
export class SecondStepEnded extends Unauthenticated {}

/**
 * The second step of sign-in: a current code of the authenticator app (each time step once) or
 * an unused recovery code. Every attempt counts against the client address; each guess counts,
 * before it is checked, against this owed step (`stepId`: over its limit the step ends,
 * SecondStepEnded, and the password is asked again) and against the account (over its limit even
 * a right code is refused, 429); a right code gives both back. No password resets these counts.
 * A recovery code taken is audited (`recovery_code_used`).
 */
export async function verifySecondFactor(deps: SecondFactorDeps, user: UserRecord, typed: string, ip: string, stepId: string): Promise<'otp' | 'recovery'> {
  const failed = (reason: 'account_locked' | 'wrong_code' | 'step_exhausted') => deps.audit('sign_in_failed', { userId: user.id, ip, reason });
  await countSignInAttempt(deps, ip, user.id);
  try {
    await deps.limits.secondStepAttempt.consume(stepId);
  } catch (err) {
    if (!(err instanceof RateLimited)) throw err;
    failed('step_exhausted');
    throw new SecondStepEnded('Too many wrong codes: sign in again with your password');
  }
  try {
    const used = await attempt(deps.limits.secondStepAccount, accountKey(user.id), () => checkSecondFactor(deps, user, typed));
    await deps.limits.secondStepAttempt.refund(stepId);
    if (used === 'recovery') deps.audit('recovery_code_used', { userId: user.id, ip });
    return used;
  } catch (err) {
    if (err instanceof RateLimited) failed('account_locked');
    else if (err instanceof Unauthenticated) failed('wrong_code');
    throw err;
  }
}

/** Takes the code if it is a current, unused authenticator code or an unused recovery code; 401 otherwise. */
async function checkSecondFactor(deps: SecondFactorDeps, user: UserRecord, typed: string): Promise<'otp' | 'recovery'> {
  const compact = typed.replace(/\s/g, '');
  if (SIX_DIGITS.test(compact)) {
    const app = await deps.store.authenticatorApp.getTotp(user.id);
    const step = isAuthenticatorAppOn(app) ? stepOf(totpOf(deps, user.name, await openSeed(deps, user.id, app.secretJwe, () => new SeedUnreadable())), compact, deps.now()) : undefined;
    if (step !== undefined && (await deps.store.authenticatorApp.useTotpStep(user.id, step))) return 'otp';
  } else if (normalRecoveryCode(compact).length === RECOVERY_LENGTH) {
    const sha256 = hashSecret(normalRecoveryCode(compact));
    // One computation per salt among the unused codes (one set has one; a plain SHA-256 of before has none).
    const candidates = new Set<string>();
    for (const stored of await deps.store.authenticatorApp.listRecoveryCodeHashes(user.id)) {
      if (!stored.startsWith(SLOW_HASH_PREFIX)) candidates.add(sha256);
      else if (![...candidates].some((c) => sameSalt(c, stored))) candidates.add(await slowHash(sha256, RECOVERY_CODE_HASHING, stored));
    }
    for (const candidate of candidates) {
      if (await deps.store.authenticatorApp.useRecoveryCode(user.id, candidate, deps.now())) return 'recovery';
    }
  }
  throw new Unauthenticated('That code is not right, or it was used already');
}
