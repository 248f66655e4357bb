/**
 * The authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30 seconds, by otpauth) and its
 * recovery codes, as a second factor of sign-in (docs/account.md#authenticator-app-and-recovery-codes).
 *
 * - The seed is kept only sealed (src/security/sealed.ts), while the setup waits for its first
 *   code as after: the database alone gives no one the codes.
 * - A code is taken once: the time step of the last accepted code is stored, and a code of that
 *   step or an earlier one is refused (docs/decisions.md#authenticator-codes-are-taken-once).
 * - Recovery codes are random, shown once, stored by SHA-256 only, and each works once.
 * - Codes count against the account like passwords (deps.limits.signInAccount), so a stolen
 *   password cannot be followed by guessing codes faster than passwords.
 */
import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Logger } from 'pino';
import QRCode from 'qrcode';
import type { Audit } from '../audit.js';
import { Conflict, InvalidInput, RateLimited, Unauthenticated, Unavailable } from '../domain/errors.js';
import { hashSecret } from '../oauth/secrets.js';
import { seal, unseal } from '../security/sealed.js';
import type { UserRecord } from '../store/types.js';
import type { AccountDeps } from './accounts.js';
import { reconfirm, type Reconfirmation } from './reauth.js';

export interface SecondFactorDeps extends AccountDeps {
  audit: Audit;
  /** SESSION_SECRET's values: the first seals, any opens. */
  secrets: readonly string[];
  /** Who the authenticator app says the codes are for: PUBLIC_URL's host name. */
  issuer: string;
  logger: Pick<Logger, 'error'>;
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

function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  return { codes, hashes: codes.map((c) => hashSecret(normalRecoveryCode(c))) };
}

/** Whether the user signs in with a second step (an authenticator app switched on). */
export async function hasSecondFactor(deps: Pick<AccountDeps, 'store'>, userId: number): Promise<boolean> {
  const totp = await deps.store.getTotp(userId);
  return totp !== undefined && totp.confirmedAt !== null;
}

interface SecondFactorStatus {
  enabled: boolean;
  /** Unused recovery codes (0 while switched off). */
  recoveryCodesLeft: number;
}

export async function secondFactorStatus(deps: Pick<AccountDeps, 'store'>, userId: number): Promise<SecondFactorStatus> {
  const enabled = await hasSecondFactor(deps, userId);
  return { enabled, recoveryCodesLeft: enabled ? await deps.store.countRecoveryCodes(userId) : 0 };
}

/**
 * Starts (or starts over) setting up an authenticator app: a new seed, kept sealed until the
 * first code confirms it. Returns the otpauth:// URI and a QR code of it (an SVG data: URL).
 */
export async function startTotpSetup(deps: SecondFactorDeps, user: UserRecord): Promise<{ uri: string; qrImage: string }> {
  const seed = new Secret({ size: 20 }).base32;
  const saved = await deps.store.savePendingTotp(user.id, await seal(deps.secrets[0]!, SEED_INFO, seed), deps.now());
  if (!saved) throw new Conflict('An authenticator app is already switched on; switch it off first');
  const uri = totpOf(deps, user.name, seed).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return { uri, qrImage: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** The time step a 6-digit code is valid for now, if it is; undefined when it is not. */
function stepOf(totp: TOTP, code: string, now: number): number | undefined {
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : TOTP.counter({ period: PERIOD_SECONDS, timestamp: now }) + delta;
}

const SEED_UNREADABLE = 'The authenticator app cannot be checked now; use a recovery code';

/**
 * The seed, opened with any SESSION_SECRET value. None opens it only when SESSION_SECRET lost
 * every value that sealed it (docs/operations.md#rotating-the-session-key): the codes cannot be checked, so
 * the person is told to use a recovery code (503, logged), and the app must be set up again.
 */
async function openSeed(deps: SecondFactorDeps, userId: number, jwe: string, unreadable: () => Error): Promise<string> {
  const seed = await unseal(deps.secrets, SEED_INFO, jwe);
  if (seed === undefined) {
    deps.logger.error({ userId }, 'no SESSION_SECRET value opens this authenticator app seed');
    throw unreadable();
  }
  return seed;
}

const SIX_DIGITS = /^\d{6}$/;

/**
 * Switches the pending setup on with its first valid code; returns the recovery codes (shown
 * once). A wrong code counts against the account like a wrong password.
 */
export async function confirmTotpSetup(deps: SecondFactorDeps, user: UserRecord, code: string, ip: string): Promise<string[]> {
  const pending = await deps.store.getTotp(user.id);
  if (!pending || pending.confirmedAt !== null) throw new Conflict('Start setting up an authenticator app first');
  await deps.limits.signInIp.consume(ip);
  const key = `user:${user.id}`;
  await deps.limits.signInAccount.check(key);
  const typed = code.replace(/\s/g, '');
  const step = SIX_DIGITS.test(typed) ? stepOf(totpOf(deps, user.name, await openSeed(deps, user.id, pending.secretJwe, () => new Conflict('This setup cannot be finished any more; start again'))), typed, deps.now()) : undefined;
  if (step === undefined) {
    await deps.limits.signInAccount.consume(key);
    throw new InvalidInput('That code is not right: type the 6 digits the app shows now');
  }
  const { codes, hashes } = newRecoveryCodes();
  if (!(await deps.store.confirmTotp(user.id, pending.secretJwe, step, deps.now(), hashes))) {
    throw new Conflict('The setup changed meanwhile; start again');
  }
  await deps.limits.signInAccount.reset(key);
  deps.audit('second_factor_changed', { userId: user.id, change: 'totp_enabled' });
  return codes;
}

/** Switches the authenticator app off (the password or a passkey again first); its recovery codes go too. */
export async function disableTotp(deps: SecondFactorDeps, user: UserRecord, proof: Reconfirmation, ip: string): Promise<void> {
  if (!(await hasSecondFactor(deps, user.id))) throw new Conflict('No authenticator app is switched on');
  await reconfirm(deps, user, proof, ip);
  await deps.store.deleteTotp(user.id);
  deps.audit('second_factor_changed', { userId: user.id, change: 'totp_disabled' });
}

/** A new set of recovery codes (the password or a passkey again first); the old set stops working. */
export async function replaceRecoveryCodes(deps: SecondFactorDeps, user: UserRecord, proof: Reconfirmation, ip: string): Promise<string[]> {
  if (!(await hasSecondFactor(deps, user.id))) throw new Conflict('Switch on an authenticator app first');
  await reconfirm(deps, user, proof, ip);
  const { codes, hashes } = newRecoveryCodes();
  await deps.store.replaceRecoveryCodes(user.id, hashes, deps.now());
  deps.audit('second_factor_changed', { userId: user.id, change: 'recovery_codes_replaced' });
  return codes;
}

/**
 * The second step of sign-in: a current code of the authenticator app (each time step once) or
 * an unused recovery code. Counted like a password: every attempt against the client address,
 * failures against the account, and a locked account refuses even a right code.
 */
export async function verifySecondFactor(deps: SecondFactorDeps, user: UserRecord, typed: string, ip: string): Promise<'otp' | 'recovery'> {
  await deps.limits.signInIp.consume(ip);
  const key = `user:${user.id}`;
  const failed = (reason: 'account_locked' | 'wrong_code') => deps.audit('sign_in_failed', { userId: user.id, ip, reason });
  try {
    await deps.limits.signInAccount.check(key);
  } catch (err) {
    if (err instanceof RateLimited) failed('account_locked');
    throw err;
  }
  const compact = typed.replace(/\s/g, '');
  let used: 'otp' | 'recovery' | undefined;
  if (SIX_DIGITS.test(compact)) {
    const totp = await deps.store.getTotp(user.id);
    const step = totp && totp.confirmedAt !== null ? stepOf(totpOf(deps, user.name, await openSeed(deps, user.id, totp.secretJwe, () => new Unavailable(SEED_UNREADABLE))), compact, deps.now()) : undefined;
    if (step !== undefined && (await deps.store.useTotpStep(user.id, step))) used = 'otp';
  } else if (normalRecoveryCode(compact).length === RECOVERY_LENGTH) {
    if (await deps.store.useRecoveryCode(user.id, hashSecret(normalRecoveryCode(compact)), deps.now())) used = 'recovery';
  }
  if (!used) {
    failed('wrong_code');
    await deps.limits.signInAccount.consume(key);
    throw new Unauthenticated('That code is not right, or it was used already');
  }
  await deps.limits.signInAccount.reset(key);
  return used;
}
