/** Signing up, signing in (rate-limited, constant work for unknown names) and play heartbeats. */
import type { Audit, AuditEvents } from '../audit.js';
import { Conflict, RateLimited, SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import { accountKey, attempt, type Limits } from '../security/rate-limit.js';
import { hasPassword, type UserRecord } from '../domain/users.js';
import type { Store } from '../store/types.js';
import { createUser, EMAIL_TAKEN, NAME_TAKEN, normalizeEmail, type NewAccount } from './users.js';
import { hashPassword, PASSWORD_HASHING, verifyPassword, type ScryptParams } from './passwords.js';
import { countSignInAttempt } from './sign-in-attempts.js';

export interface AccountDeps {
  store: Store;
  now: () => number;
  limits: Limits;
  /** The audit trail (sign_in_failed); absent where nobody listens (the CLI). */
  audit?: Audit;
  /** The cost new password hashes are made at: PASSWORD_HASHING unless a test injects a lower one. */
  passwordHashing?: ScryptParams;
  /** The cost new recovery codes are hashed at: RECOVERY_CODE_HASHING unless a test injects a lower one. */
  recoveryCodeHashing?: ScryptParams;
}

/** A new account, or the account that already has the address (which the answer must not reveal). */
export type SignUpOutcome = { created: UserRecord } | { addressOwner: UserRecord };

/**
 * Creates an account. A taken name is a 409 (names are public); a taken address is not an error:
 * the caller answers as for a new account and mails the address's owner (docs/email.md#sign-up).
 * The password is hashed in both cases, so the time taken says nothing either.
 */
export async function signUp(deps: AccountDeps, input: NewAccount, ip: string): Promise<SignUpOutcome> {
  await deps.limits.signUpIp.consume(ip);
  // Checked first, so that a taken address never hides a taken name.
  if (await deps.store.users.getUserByName(input.name)) throw new Conflict(NAME_TAKEN);
  try {
    return { created: await createUser(deps, input) };
  } catch (err) {
    if (err instanceof Conflict && err.message === EMAIL_TAKEN) {
      const addressOwner = await deps.store.users.getUserByEmail(normalizeEmail(input.email));
      if (addressOwner) return { addressOwner };
    }
    throw err;
  }
}

/**
 * A real hash of nothing in particular, one per cost: an unknown name (or an account without a
 * password) costs the same scrypt run as a known one.
 */
const decoyHashes = new Map<number, Promise<string>>();

function decoyHash(params: ScryptParams): Promise<string> {
  const key = params.N * 1000 + params.r * 10 + params.p;
  let decoy = decoyHashes.get(key);
  if (!decoy) {
    decoy = hashPassword('decoy password for unknown accounts', params);
    decoyHashes.set(key, decoy);
  }
  return decoy;
}

/**
 * Checks a name (or email) and password. Every attempt counts against the client address; each
 * guess counts against the account before the password is checked and is given back when it is
 * right (src/security/rate-limit.ts attempt), so a locked account refuses even the right password
 * and a burst of parallel guesses checks at most the limit.
 */
export async function signIn(deps: AccountDeps, input: { login: string; password: string }, ip: string): Promise<UserRecord> {
  await countSignInAttempt(deps, ip);
  const login = input.login.trim();
  const user = login.includes('@') ? await deps.store.users.getUserByEmail(login) : await deps.store.users.getUserByName(login);
  // The attempted login itself is not logged: people type their password into it by mistake.
  const failed = (reason: AuditEvents['sign_in_failed']['reason']) => deps.audit?.('sign_in_failed', { userId: user?.id, ip, reason });
  const decoy = await decoyHash(deps.passwordHashing ?? PASSWORD_HASHING);
  try {
    return await attempt(deps.limits.signInAccount, user ? accountKey(user.id) : `login:${login.toLowerCase()}`, async () => {
      // An account without a password (made through an upstream) costs the same scrypt run, and fails.
      const stored = user && hasPassword(user) ? user.passwordHash : undefined;
      const ok = await verifyPassword(input.password, stored ?? decoy);
      if (!user || !ok || stored === undefined) {
        failed(user ? 'wrong_password' : 'unknown_account');
        throw new Unauthenticated('Wrong name or password');
      }
      return user;
    });
  } catch (err) {
    if (err instanceof RateLimited) failed('account_locked');
    throw err;
  }
}

const MINUTE_MS = 60_000;
/** Heartbeats further apart than this are separate play sessions: the gap was not played. */
const HEARTBEAT_GAP_MS = 5 * MINUTE_MS;

interface HeartbeatResult {
  addedMinutes: number;
  user: UserRecord;
}

/**
 * Adds the whole minutes since lastHeartbeat to playMinutes and moves lastHeartbeat forward by
 * exactly those minutes (the remainder carries over to the next heartbeat, so the total never
 * exceeds the real elapsed time). The first heartbeat, or one after a gap, starts a new play
 * session: lastHeartbeat becomes now and nothing is added.
 */
export async function heartbeat(deps: { store: Store; now: () => number }, userId: number): Promise<HeartbeatResult> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const user = await deps.store.users.getUser(userId);
    if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
    const now = deps.now();
    const elapsed = now - user.lastHeartbeat;
    const continuing = user.lastHeartbeat > 0 && elapsed >= 0 && elapsed <= HEARTBEAT_GAP_MS;
    const addedMinutes = continuing ? Math.floor(elapsed / MINUTE_MS) : 0;
    const next = continuing ? user.lastHeartbeat + addedMinutes * MINUTE_MS : now;
    const updated = await deps.store.users.recordHeartbeat(userId, user.lastHeartbeat, next, addedMinutes);
    if (updated) return { addedMinutes, user: updated };
  }
  throw new Conflict('Heartbeats are arriving concurrently; try again');
}
