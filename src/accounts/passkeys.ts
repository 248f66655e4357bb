/**
 * Passkeys (WebAuthn credentials, docs/account.md#passkeys): adding one to the signed-in account,
 * naming and removing them, and signing in with one. The relying party is PUBLIC_URL: its host
 * name is the RP ID and its origin the only origin answers are accepted from. The challenges are
 * the session's (src/sessions/session.ts: putPasskeyChallenge, takePasskeyChallenge): the handlers
 * put the one these options carry and hand back the one taken for the answer.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { components } from '../../generated/api.js';
import type { Audit } from '../audit.js';
import type { AccountDeps } from './accounts.js';
import { confirmPasswordOrPasskey, type Confirmation } from './confirmation.js';
import { countSignInAttempt } from './sign-in-attempts.js';
import type { Config } from '../config.js';
import { Conflict, Forbidden, InvalidInput, NotFound, Unauthenticated } from '../domain/errors.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import type { Limits } from '../security/rate-limit.js';
import { CONTROL_CHARACTER } from '../domain/text.js';
import { UniqueViolation } from '../domain/errors.js';
import type { PasskeyRecord } from '../domain/passkeys.js';
import { isLastWayIn, type UserRecord } from '../domain/users.js';
import type { Store } from '../store/types.js';

interface PasskeyDeps {
  config: Pick<Config, 'publicUrl'>;
  store: Store;
  now: () => number;
  audit: Audit;
}

/** What the account page and the API show of a passkey: never its key or credential id. */
interface PasskeyView {
  id: number;
  name: string;
  created_at: number;
  last_used_at?: number;
  synced: boolean;
}

const MAX_NAME = 64;
/** The relying party's name the authenticator shows beside the account name. */
const RP_NAME = 'Identity';

function relyingParty(config: Pick<Config, 'publicUrl'>): { rpID: string; origin: string } {
  const url = new URL(config.publicUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/**
 * The WebAuthn user handle of a user: their id, as text. Not personal data, stable, and never
 * reused (ids of deleted accounts are not given again).
 */
function userHandle(userId: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(String(userId)));
}

function passkeyView(p: PasskeyRecord): PasskeyView {
  return { id: p.id, name: p.name, created_at: p.createdAt, ...(p.lastUsedAt === null ? {} : { last_used_at: p.lastUsedAt }), synced: p.backedUp };
}

/** The browser's answer to registration options, as the contract (openapi.yaml) checked its shape. */
type PasskeyRegistration = components['schemas']['PasskeyRegistration'];
/** The browser's answer to authentication options, as the contract checked its shape. */
type PasskeyAssertion = components['schemas']['PasskeyAssertion'];

/*
 * The answers as the WebAuthn library takes them. It reads the credential's ids, its type and its
 * response, and checks the rest itself; the extensions' outputs and the attachment it never reads.
 */
function registrationResponse(answer: PasskeyRegistration): RegistrationResponseJSON {
  return { id: answer.id, rawId: answer.rawId, type: answer.type, response: answer.response, clientExtensionResults: {} };
}

function authenticationResponse(answer: PasskeyAssertion): AuthenticationResponseJSON {
  return { id: answer.id, rawId: answer.rawId, type: answer.type, response: answer.response, clientExtensionResults: {} };
}

function validName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > MAX_NAME || CONTROL_CHARACTER.test(name)) {
    throw new InvalidInput(`A passkey's name is 1 to ${MAX_NAME} characters, without control characters`);
  }
  return name;
}

export async function listPasskeys(store: Pick<Store, 'passkeys'>, userId: number): Promise<PasskeyView[]> {
  return (await store.passkeys.listPasskeys(userId)).map(passkeyView);
}

/**
 * Options for navigator.credentials.create(): a discoverable credential is preferred, as is user
 * verification. Only once the person confirmed who they are (`confirmPasswordOrPasskey`: the password, or a
 * passkey confirmation of this session within 5 minutes): a passkey signs in without the password
 * and without the authenticator app, so a stolen session alone must not add one. The challenge
 * these options carry is the only way to addPasskey, so the confirmation covers the whole ceremony.
 */
export async function registrationOptions(
  deps: AccountDeps & Pick<PasskeyDeps, 'config'>,
  user: UserRecord,
  proof: Confirmation,
  ip: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  await confirmPasswordOrPasskey(deps, user, proof, ip);
  const existing = await deps.store.passkeys.listPasskeys(user.id);
  return generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty(deps.config).rpID,
    userName: user.name,
    userDisplayName: user.name,
    userID: userHandle(user.id),
    attestationType: 'none',
    // The same authenticator is not registered twice for one account.
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
}

/**
 * Verifies the browser's answer to the registration options whose challenge was `challenge` and
 * stores the passkey, named `name` or "Passkey N".
 */
export async function addPasskey(
  deps: PasskeyDeps,
  userId: number,
  input: { response: PasskeyRegistration; name?: string | undefined; challenge: string | undefined },
  ip: string,
): Promise<PasskeyView> {
  if (input.challenge === undefined) throw new InvalidInput('No passkey registration is under way (or it expired): start again');
  const name = input.name === undefined ? undefined : validName(input.name);
  const { rpID, origin } = relyingParty(deps.config);
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: registrationResponse(input.response),
      expectedChallenge: input.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    });
  } catch {
    throw new InvalidInput('The passkey could not be verified');
  }
  if (!verified.verified) throw new InvalidInput('The passkey could not be verified');
  const info = verified.registrationInfo;
  const count = (await deps.store.passkeys.listPasskeys(userId)).length;
  try {
    const passkey = await deps.store.passkeys.createPasskey({
      userId,
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: (info.credential.transports ?? []).slice(0, 8),
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      name: name ?? `Passkey ${count + 1}`,
      createdAt: deps.now(),
    });
    deps.audit('passkey_added', { userId, passkeyId: passkey.id, ip });
    return passkeyView(passkey);
  } catch (err) {
    if (err instanceof UniqueViolation) throw new Conflict('This passkey is registered already');
    throw err;
  }
}

export async function renamePasskey(store: Pick<Store, 'passkeys'>, userId: number, id: number, rawName: string): Promise<PasskeyView> {
  const name = validName(rawName);
  const renamed = await store.passkeys.renamePasskey(userId, id, name);
  if (!renamed) throw new NotFound('Passkey not found');
  return passkeyView(renamed);
}

/** An account without a password (made through an upstream) keeps one way in. */
const LAST_WAY_IN = 'This is the last way to sign in to your account: set a password or link another account first';

/**
 * Removes one of the user's passkeys: 404 when the user has none with this id; 409 when it is the
 * account's last way in (isLastWayIn), said before the confirmation is asked for; then the
 * password or a passkey confirmation of this session (`confirmPasswordOrPasskey`), as for every
 * factor change: a stolen session alone must not take a way in from its owner. What the security
 * event `passkey_removed` ends goes with it (every other session, tokens, codes: the usual reason
 * is a lost or stolen device).
 */

export async function removePasskey(
  deps: AccountDeps & Pick<PasskeyDeps, 'audit'>,
  user: UserRecord,
  id: number,
  proof: Confirmation,
  ip: string,
  keepSessionIdHash?: string,
): Promise<void> {
  const passkeys = await deps.store.passkeys.listPasskeys(user.id);
  if (!passkeys.some((p) => p.id === id)) throw new NotFound('Passkey not found');
  if (await isLastWayIn(user, passkeys.length, async () => (await deps.store.upstreamIdentities.listUpstreamIdentities(user.id)).length)) throw new Conflict(LAST_WAY_IN);
  await confirmPasswordOrPasskey(deps, user, proof, ip);
  const outcome = await deps.store.passkeys.deletePasskey(user.id, id, SECURITY_EVENTS.passkey_removed, deps.now(), keepSessionIdHash);
  if (outcome === 'missing') throw new NotFound('Passkey not found');
  if (outcome === 'last') throw new Conflict(LAST_WAY_IN);
  deps.audit('passkey_removed', { userId: user.id, passkeyId: id, ip });
}

/** Options for navigator.credentials.get() with a discoverable credential: no account named. */
export function authenticationOptions(deps: Pick<PasskeyDeps, 'config'>): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({ rpID: relyingParty(deps.config).rpID, userVerification: 'preferred' });
}

/**
 * Options for confirming who the signed-in person is with one of the account's passkeys (before a
 * factor change): the account's passkeys are the allowed ones. 409 when it has none.
 */
export async function passkeyConfirmationOptions(deps: Pick<PasskeyDeps, 'config' | 'store'>, userId: number): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const passkeys = await deps.store.passkeys.listPasskeys(userId);
  if (passkeys.length === 0) throw new Conflict('This account has no passkey; confirm with your password');
  return generateAuthenticationOptions({
    rpID: relyingParty(deps.config).rpID,
    userVerification: 'preferred',
    allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: p.transports })),
  });
}

/**
 * Verifies a passkey confirmation of the signed-in user: as a passkey sign-in is checked (and
 * counted), and the passkey must be one of this user's. Refusals are 403, not 401: the session
 * stays signed in.
 */
export async function verifyPasskeyConfirmation(
  deps: PasskeyDeps & { limits: Pick<Limits, 'signInIp'> },
  userId: number,
  input: { response: PasskeyAssertion; challenge: string | undefined },
  ip: string,
): Promise<void> {
  if (input.challenge === undefined) throw new InvalidInput('No passkey confirmation is under way (or it expired): start again');
  let signedIn: { userId: number };
  try {
    signedIn = await verifyPasskeySignIn(deps, input, ip);
  } catch (err) {
    if (err instanceof Unauthenticated) throw new Forbidden(REFUSED);
    throw err;
  }
  if (signedIn.userId !== userId) throw new Forbidden(REFUSED);
  deps.audit('passkey_confirmed', { userId, ip });
}

/**
 * How a passkey sign-in proved who the person is (RFC 8176): possession of a key, `swk` when the
 * passkey may be synced between devices (its key is not bound to one piece of hardware), `hwk`
 * when it is bound to its authenticator; `user` (the person was present); and `mfa` when the
 * authenticator also verified the person (PIN or biometrics): possession plus knowledge or
 * inherence (docs/decisions.md#passkeys).
 */
export function passkeyAmr(o: { deviceType: PasskeyRecord['deviceType']; backedUp: boolean; userVerified: boolean }): string[] {
  const key = o.deviceType === 'multiDevice' || o.backedUp ? 'swk' : 'hwk';
  return o.userVerified ? [key, 'user', 'mfa'] : [key, 'user'];
}

const REFUSED = 'The passkey was not accepted';

/**
 * Verifies the browser's answer to the authentication options whose challenge was `challenge`:
 * the user it signs in and how (amr). Refuses (401) an unknown credential, a bad signature, and a
 * signature counter that did not grow (a cloned authenticator, WebAuthn Level 3, 6.1.1), which is
 * audited. Every attempt counts against the client address, as a password sign-in does (429).
 */
export async function verifyPasskeySignIn(
  deps: PasskeyDeps & { limits: Pick<Limits, 'signInIp'> },
  input: { response: PasskeyAssertion; challenge: string | undefined },
  ip: string,
): Promise<{ userId: number; amr: string[] }> {
  await countSignInAttempt(deps, ip);
  if (input.challenge === undefined) throw new InvalidInput('No passkey sign-in is under way (or it expired): start again');
  const passkey = await deps.store.passkeys.getPasskeyByCredentialId(input.response.id);
  if (!passkey) {
    deps.audit('sign_in_failed', { ip, reason: 'passkey_unknown' });
    throw new Unauthenticated('This passkey is not registered here');
  }
  const fail = (reason: 'passkey_invalid' | 'passkey_counter'): never => {
    deps.audit('sign_in_failed', { userId: passkey.userId, ip, reason });
    throw new Unauthenticated(REFUSED);
  };
  const handle = input.response.response.userHandle;
  if (handle !== undefined && handle !== Buffer.from(userHandle(passkey.userId)).toString('base64url')) fail('passkey_invalid');
  const { rpID, origin } = relyingParty(deps.config);
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: authenticationResponse(input.response),
      expectedChallenge: input.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: passkey.credentialId, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: passkey.counter, transports: passkey.transports },
      requireUserVerification: false,
    });
  } catch (err) {
    // The library's words for a counter that did not grow.
    return fail(err instanceof Error && err.message.startsWith('Response counter value') ? 'passkey_counter' : 'passkey_invalid');
  }
  if (!verified.verified) return fail('passkey_invalid');
  const info = verified.authenticationInfo;
  const use = { counter: info.newCounter, deviceType: info.credentialDeviceType, backedUp: info.credentialBackedUp };
  // Checked again in the write itself: of two sign-ins with one counter value, one passes.
  if (!(await deps.store.passkeys.recordPasskeyUse(passkey.id, use, deps.now()))) return fail('passkey_counter');
  return { userId: passkey.userId, amr: passkeyAmr({ ...use, userVerified: info.userVerified }) };
}
