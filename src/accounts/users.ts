import { Conflict, InvalidInput, NotFound } from '../domain/errors.js';
import { hashPassword, type ScryptParams } from './passwords.js';
import type { components } from '../../generated/api.js';
import { UniqueViolation } from '../domain/errors.js';
import { NO_PASSWORD, type PublicUserRecord, type UserPatch, type UserRecord } from '../domain/users.js';
import type { Store } from '../store/types.js';

export type PublicUser = components['schemas']['PublicUser'];
type Identity = components['schemas']['Identity'];

const NAME_PATTERN = /^[A-Za-z0-9_-]{3,28}$/;
const NAME_RULE = 'Name must be 3 to 28 characters of A-Z, a-z, 0-9, _ and -';
const NAME_MAX = 28;
const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const FLAIR_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const MAX_BIO_LENGTH = 1024;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** The public profile: exactly the interface's fields, never email, password or sessions. */
export function toPublicUser(u: PublicUserRecord): PublicUser {
  const user: PublicUser = {
    name: u.name,
    id: u.id,
    bio: u.bio,
    flairs: u.flairs,
    equippedFlair: u.equippedFlair,
    playMinutes: u.playMinutes,
    lastHeartbeat: u.lastHeartbeat,
    modLevel: u.modLevel as PublicUser['modLevel'],
  };
  if (u.pfpTimestamp !== null) user.pfpTimestamp = u.pfpTimestamp;
  return user;
}

/** The whois identity: email only with the email scope; pfpTimestamp left out when unset. */
export function toIdentity(
  u: Pick<UserRecord, 'id' | 'name' | 'email' | 'pfpTimestamp'>,
  scopes: readonly string[],
): Identity {
  const identity: Identity = { id: u.id, name: u.name };
  if (u.pfpTimestamp !== null) identity.pfpTimestamp = u.pfpTimestamp;
  if (scopes.includes('email')) identity.email = u.email;
  return identity;
}

export interface NewAccount {
  name: string;
  email: string;
  password: string;
  /** The address needs no proof (operator CLI, demo data); otherwise it starts unverified. */
  emailVerified?: boolean;
}

/**
 * A public name suggested from another one (an upstream's name for the person): its runs of
 * characters the name rule does not allow become `_`, cut to the rule's length. It may still be
 * too short or taken; the person picks the name anyway.
 */
export function suggestedPublicName(name: string | null): string {
  return (name ?? '').replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, NAME_MAX);
}

/** An email address as it is stored (trimmed, lower case), or undefined when it is not one. */
export function emailAddressOf(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return email.length > 254 || !EMAIL_PATTERN.test(email) ? undefined : email;
}

/** An email address as it is stored (trimmed, lower case), or InvalidInput. */
export function normalizeEmail(raw: string): string {
  const email = emailAddressOf(raw);
  if (email === undefined) throw new InvalidInput('Email address is not valid');
  return email;
}

/** The rule for a password a user chooses (sign-up, password change, reset). */
export function checkNewPassword(password: string): void {
  if (password.length < 8 || password.length > 256) throw new InvalidInput('Password must be 8 to 256 characters');
}

export const EMAIL_TAKEN = 'Email address is already registered';
export const NAME_TAKEN = 'Name is already taken';

export async function createUser(deps: { store: Pick<Store, 'users'>; now: () => number; passwordHashing?: ScryptParams }, input: NewAccount): Promise<UserRecord> {
  if (!NAME_PATTERN.test(input.name)) throw new InvalidInput(NAME_RULE);
  const email = normalizeEmail(input.email);
  checkNewPassword(input.password);
  const passwordHash = await hashPassword(input.password, deps.passwordHashing);
  const now = deps.now();
  try {
    return await deps.store.users.createUser({ name: input.name, email, passwordHash, emailVerifiedAt: input.emailVerified ? now : null }, now);
  } catch (err) {
    if (err instanceof UniqueViolation) {
      throw new Conflict(err.field === 'email' ? EMAIL_TAKEN : NAME_TAKEN);
    }
    throw err;
  }
}

/**
 * An account made through an upstream identity provider (src/upstreams/sign-in.ts): the name
 * picked, no password (NO_PASSWORD: signing in with one always fails), the upstream's verified
 * address verified, and that identity linked in the same transaction.
 */
export async function createAccountWithoutPassword(
  deps: { store: Pick<Store, 'users'>; now: () => number },
  input: { name: string; email: string; upstream: { slug: string; name: string; subject: string } },
): Promise<UserRecord> {
  if (!NAME_PATTERN.test(input.name)) throw new InvalidInput(NAME_RULE);
  const email = normalizeEmail(input.email);
  const now = deps.now();
  try {
    return await deps.store.users.createUser(
      { name: input.name, email, passwordHash: NO_PASSWORD, emailVerifiedAt: now, upstreamIdentity: { upstreamSlug: input.upstream.slug, subject: input.upstream.subject, email } },
      now,
    );
  } catch (err) {
    if (err instanceof UniqueViolation) {
      throw new Conflict(err.field === 'email' ? EMAIL_TAKEN : err.field === 'upstreamIdentity' ? `This ${input.upstream.name} account is linked to another account here` : NAME_TAKEN);
    }
    throw err;
  }
}

function nonNegativeInt(name: string, value: number, max = MAX_SAFE): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new InvalidInput(`${name} must be an integer from 0 to ${max}`);
  }
}

/** Validates and applies a profile change; equippedFlair must be one of the (new) flairs. */
export async function updateUser(store: Pick<Store, 'users'>, id: number, patch: UserPatch): Promise<UserRecord> {
  const current = await store.users.getUser(id);
  if (!current) throw new NotFound(`User ${id} not found`);
  if (patch.bio !== undefined && patch.bio.length > MAX_BIO_LENGTH) {
    throw new InvalidInput(`Bio must be at most ${MAX_BIO_LENGTH} characters`);
  }
  // A NUL cannot be stored in PostgreSQL text, and means nothing in a bio: refused on every database.
  if (patch.bio?.includes('\u0000')) throw new InvalidInput('Bio must not contain NUL characters');
  if (patch.flairs !== undefined) {
    if (patch.flairs.length === 0 || patch.flairs.length > 64) throw new InvalidInput('A user has 1 to 64 flairs');
    const bad = patch.flairs.find((f) => !FLAIR_PATTERN.test(f));
    if (bad !== undefined) throw new InvalidInput(`Invalid flair "${bad}": use 1 to 32 of a-z, 0-9, _ and -`);
    patch.flairs = [...new Set(patch.flairs)];
  }
  if (patch.playMinutes !== undefined) nonNegativeInt('playMinutes', patch.playMinutes);
  if (patch.lastHeartbeat !== undefined) nonNegativeInt('lastHeartbeat', patch.lastHeartbeat);
  if (patch.modLevel !== undefined) nonNegativeInt('modLevel', patch.modLevel, 3);
  const flairs = patch.flairs ?? current.flairs;
  const equipped = patch.equippedFlair ?? current.equippedFlair;
  if (!flairs.includes(equipped)) {
    if (patch.equippedFlair !== undefined) throw new InvalidInput(`The user does not own the flair "${equipped}"`);
    // Taking away the equipped flair unequips it.
    patch.equippedFlair = flairs.includes('none') ? 'none' : flairs[0];
  }
  const updated = await store.users.updateUser(id, patch);
  if (!updated) throw new NotFound(`User ${id} not found`);
  return updated;
}
