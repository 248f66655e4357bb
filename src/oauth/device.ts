/**
 * The device authorization grant (RFC 8628; docs/oauth.md#devices-without-a-browser): a game on a
 * console, a TV or a terminal asks for a pair of codes, shows the short one, and polls the token
 * endpoint with the long one while the person approves or denies on /device from a phone or a
 * computer where they are signed in.
 *
 * - The user code is 8 letters of a 20-letter alphabet (about 2.6 * 10^10 codes), alive for 10
 *   minutes; wrong codes typed on /device count against the address and the account
 *   (deviceCodeIp, deviceCodeAccount), before anything is looked up.
 * - The token endpoint's poll is the device code grant (src/oauth/grants/device-code.ts).
 * - Both codes are stored as hashes; the refresh tokens of a device sign-in form the family of the
 *   device code's hash, as those of a code exchange form the family of the code's.
 * - An approval is remembered consent, as on the consent page: the app is among the person's
 *   connected apps, and revoking it there ends the device's tokens.
 */
import { randomInt } from 'node:crypto';
import type { components } from '../../generated/api.js';
import type { Audit } from '../audit.js';
import type { AppRecord } from '../domain/apps.js';
import {
  formatUserCode,
  normalizeUserCode,
  USER_CODE_ALPHABET,
  USER_CODE_LENGTH,
  type DeviceAuthorizationRecord,
} from '../domain/device-authorizations.js';
import { Forbidden, InvalidInput, InvalidScope, UnauthorizedClient, UniqueViolation } from '../domain/errors.js';
import { LIFETIMES } from '../domain/lifetimes.js';
import type { UserRecord } from '../domain/users.js';
import { refuseSuspended } from '../accounts/suspensions.js';
import { accountKey, attempt, type Limits } from '../security/rate-limit.js';
import { hashSecret, randomSecret } from '../security/secrets.js';
import { authenticateClientRequest, type ClientAuthParams } from './client-authentication.js';
import { allowsDevice, allowsRefresh, DEVICE_FLOW_NOT_ALLOWED } from './grant-types.js';
import { recordConsent } from './consent.js';
import { parseScopes, type Scope } from './scopes.js';
import { TOKEN_BYTES } from './secrets.js';
import type { ExchangeDeps } from './tokens.js';

/** RFC 8628 3.2's `interval`: seconds between two polls; each slow_down adds SLOW_DOWN_SECONDS. */
const POLL_INTERVAL_SECONDS = 5;
/** `expires_in` of both codes: LIFETIMES.deviceCode in seconds. */
const DEVICE_CODE_EXPIRES_IN = LIFETIMES.deviceCode / 1000;

const EMAIL_NOT_VERIFIED = 'The email scope needs a verified email address, and you have not verified yours yet';

/** What the /device page says when a code cannot be used. */
const DEVICE_CODE_REFUSALS = {
  malformed: 'That is not a code: it is 8 letters, like WDJB-MJHT',
  unknown: 'That code is not valid: check it on your device and type it again',
  expired: 'That code has expired: start again on your device',
  decided: 'That code has been used already: start again on your device',
} as const;

interface DeviceDeps extends ExchangeDeps {
  limits: Pick<Limits, 'deviceStartIp' | 'deviceCodeIp' | 'deviceCodeAccount'>;
  /** Required here: a device's approval is recorded consent, and a denial is recorded too. */
  audit: Audit;
}

interface DeviceAuthorizationParams extends ClientAuthParams {
  scope?: string;
}

/** RFC 8628 3.2's answer, as the contract names it. */
type DeviceAuthorizationAnswer = components['schemas']['DeviceAuthorizationResponse'];

/** A user code of USER_CODE_LENGTH letters drawn uniformly from USER_CODE_ALPHABET. */
function drawUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** The scopes a device may ask for: the authorization endpoint's rules; offline_access only with the refresh grant. */
function deviceScopes(app: AppRecord, scope: string | undefined): Scope[] {
  const parsed = parseScopes(scope ?? '');
  if ('error' in parsed) throw new InvalidScope(parsed.error);
  const scopes = allowsRefresh(app) ? parsed.scopes : parsed.scopes.filter((s) => s !== 'offline_access');
  if (scopes.length === 0) throw new InvalidScope('No scope requested');
  return scopes;
}

/** `POST /api/oauth/device_authorization` (RFC 8628 3.1 and 3.2). */
export async function startDeviceAuthorization(
  deps: DeviceDeps,
  params: DeviceAuthorizationParams,
  authorization: string | undefined,
  ip: string,
): Promise<DeviceAuthorizationAnswer> {
  await deps.limits.deviceStartIp.consume(ip);
  const { app } = await authenticateClientRequest(params, authorization, async (clientId) => ({ app: await deps.store.apps.getApp(clientId) }));
  if (!allowsDevice(app)) throw new UnauthorizedClient(DEVICE_FLOW_NOT_ALLOWED);
  const scopes = deviceScopes(app, params.scope);
  const deviceCode = randomSecret(TOKEN_BYTES);
  const now = deps.now();
  // A taken user code (a live or not yet purged one) is drawn again; three collisions in a row
  // mean something other than chance.
  for (let tries = 0; ; tries++) {
    const userCode = drawUserCode();
    const record: DeviceAuthorizationRecord = {
      deviceCodeHash: hashSecret(deviceCode),
      userCodeHash: hashSecret(userCode),
      clientId: app.clientId,
      scopes,
      intervalSeconds: POLL_INTERVAL_SECONDS,
      lastPolledAt: null,
      decision: null,
      userId: null,
      authTime: null,
      amr: null,
      decidedAt: null,
      usedAt: null,
      expiresAt: now + LIFETIMES.deviceCode,
      createdAt: now,
    };
    try {
      await deps.store.deviceAuthorizations.createDeviceAuthorization(record);
    } catch (err) {
      if (err instanceof UniqueViolation && tries < 2) continue;
      throw err;
    }
    const shown = formatUserCode(userCode);
    const verification = `${deps.config.publicUrl}/device`;
    return {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: verification,
      verification_uri_complete: `${verification}?user_code=${shown}`,
      expires_in: DEVICE_CODE_EXPIRES_IN,
      interval: POLL_INTERVAL_SECONDS,
    };
  }
}

/** What /device shows for a live user code: the app and what it asks for, as the consent page does. */
export interface DeviceRequestView {
  /** The code as people read it (`WDJB-MJHT`), for the form's hidden field. */
  userCode: string;
  app: AppRecord;
  owner: UserRecord;
  scopes: Scope[];
  /** `email` is asked of a person whose address is not verified: Approve cannot work (the page says so). */
  emailNotVerified: boolean;
}

/** Who is at /device: the signed-in person and their browser's address. */
interface DeviceVisitor {
  user: UserRecord;
  ip: string;
}

/**
 * Looks a typed user code up for `visitor`. A code that is not even shaped like one is refused
 * without counting (a typo); any other is counted as a guess against the address and the
 * account first, and given back when the code exists (live, expired or decided): only wrong
 * codes stay counted, and past either limit nothing is looked up (429).
 */
export async function findUserCode(deps: DeviceDeps, typed: string, visitor: DeviceVisitor): Promise<{ record: DeviceAuthorizationRecord; view: DeviceRequestView }> {
  const normalized = normalizeUserCode(typed);
  if (normalized === undefined) throw new InvalidInput(DEVICE_CODE_REFUSALS.malformed);
  const record = await attempt(deps.limits.deviceCodeIp, visitor.ip, () =>
    attempt(deps.limits.deviceCodeAccount, accountKey(visitor.user.id), async () => {
      const found = await deps.store.deviceAuthorizations.getDeviceAuthorizationByUserCode(hashSecret(normalized));
      if (!found) throw new InvalidInput(DEVICE_CODE_REFUSALS.unknown);
      return found;
    }),
  );
  const now = deps.now();
  if (record.decision !== null || record.usedAt !== null) throw new InvalidInput(DEVICE_CODE_REFUSALS.decided);
  if (record.expiresAt <= now) throw new InvalidInput(DEVICE_CODE_REFUSALS.expired);
  const app = await deps.store.apps.getApp(record.clientId);
  const owner = app && (await deps.store.users.getUser(app.ownerId));
  // The app was deleted since (its device authorizations go with it: only a race gets here).
  if (!app || !owner) throw new InvalidInput(DEVICE_CODE_REFUSALS.unknown);
  const scopes = record.scopes as Scope[];
  return {
    record,
    view: { userCode: formatUserCode(normalized), app, owner, scopes, emailNotVerified: scopes.includes('email') && visitor.user.emailVerifiedAt === null },
  };
}

/**
 * The person's decision on /device (the code is looked up again, counted as findUserCode counts
 * it). Approving needs what a code of the consent page needs (not suspended, a verified address
 * for `email`) and is remembered as consent; of two decisions on one code only the first counts.
 * `signIn`: when and how the person signed in to this session (the ID token's auth_time and amr).
 */
export async function decideUserCode(
  deps: DeviceDeps,
  typed: string,
  visitor: DeviceVisitor & { authTime: number; amr: readonly string[] },
  decision: 'approve' | 'deny',
): Promise<DeviceRequestView> {
  const { record, view } = await findUserCode(deps, typed, visitor);
  const now = deps.now();
  const { user } = visitor;
  if (decision === 'approve') {
    refuseSuspended(user, now);
    if (view.emailNotVerified) throw new Forbidden(EMAIL_NOT_VERIFIED);
  }
  const approval = decision === 'approve' ? { userId: user.id, authTime: visitor.authTime, amr: visitor.amr } : null;
  if (!(await deps.store.deviceAuthorizations.decideDeviceAuthorization(record.userCodeHash, now, user.id, approval))) {
    throw new InvalidInput(DEVICE_CODE_REFUSALS.decided);
  }
  if (decision === 'approve') {
    await recordConsent(deps, { userId: user.id, clientId: record.clientId, scopes: view.scopes, flow: 'device' });
  } else {
    deps.audit('device_authorization_denied', { userId: user.id, clientId: record.clientId });
  }
  return view;
}
