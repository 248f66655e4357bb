/**
 * The device code grant (RFC 8628 3.4 and 3.5): a device polls with the device code it got at the
 * device authorization endpoint (src/oauth/device.ts) until the person approves on /device, then
 * gets its tokens once.
 */
import type { AppRecord } from '../../domain/apps.js';
import type { DeviceAuthorizationRecord } from '../../domain/device-authorizations.js';
import { DevicePollRefused, InvalidGrant, InvalidInput } from '../../domain/errors.js';
import { activeSuspension } from '../../accounts/suspensions.js';
import { hashSecret } from '../../security/secrets.js';
import { allowsRefresh, DEVICE_CODE_GRANT, DEVICE_FLOW_NOT_ALLOWED } from '../grant-types.js';
import { EXPIRES_IN_SECONDS, newTokenPair, signIdToken, type ExchangeDeps, type TokenResult } from '../tokens.js';
import type { Grant } from './grant.js';

export const deviceCodeGrant: Grant<{ deviceCodeHash: string }, { app: AppRecord | undefined }> = {
  type: DEVICE_CODE_GRANT,
  notAllowed: DEVICE_FLOW_NOT_ALLOWED,
  fields(params) {
    if (params.device_code === undefined) throw new InvalidInput('Body field device_code is required');
    return { deviceCodeHash: hashSecret(params.device_code) };
  },
  read: async (deps, clientId) => ({ app: await deps.store.apps.getApp(clientId) }),
  issue: poll,
};

async function poll(deps: ExchangeDeps, { app }: { app: AppRecord }, { deviceCodeHash }: { deviceCodeHash: string }): Promise<TokenResult> {
  const now = deps.now();
  const poll = await deps.store.deviceAuthorizations.pollDeviceAuthorization(deviceCodeHash, now);
  // Another app's device code is as unknown as none.
  if (poll.outcome === 'unknown' || poll.record.clientId !== app.clientId) throw new InvalidGrant('Invalid device code');
  const { record } = poll;
  if (record.usedAt !== null) throw new InvalidGrant('Device code has already been used');
  if (record.expiresAt <= now) throw new DevicePollRefused('expired_token', 'Device code has expired');
  if (record.decision === 'denied') throw new DevicePollRefused('access_denied', 'The person denied this device');
  if (record.decision === null) {
    // Only a device still waiting is told to slow down: an approved one gets its tokens at once.
    if (poll.outcome === 'slow_down') {
      throw new DevicePollRefused('slow_down', `Polled too fast; wait ${record.intervalSeconds} seconds between requests from now on`);
    }
    throw new DevicePollRefused('authorization_pending', 'The person has not approved or denied this device yet');
  }
  return redeem(deps, app, record, now);
}

/** An approved device code's tokens, once (a concurrent poll that redeemed it first wins). */
async function redeem(deps: ExchangeDeps, app: AppRecord, record: DeviceAuthorizationRecord, now: number): Promise<TokenResult> {
  const user = record.userId === null ? undefined : await deps.store.users.getUser(record.userId);
  if (!user) throw new InvalidGrant('Invalid device code');
  // Suspended since the approval: the device gets nothing (the suspension ended the rest).
  if (activeSuspension(user, now)) throw new DevicePollRefused('access_denied', 'The person denied this device');
  // Approved before a credential change that ends approvals (docs/account.md#what-each-security-event-ends):
  // the change withdrew it, even one written after the change's transaction.
  if (record.decidedAt !== null && user.credentialsChangedAt !== null && record.decidedAt < user.credentialsChangedAt) {
    throw new DevicePollRefused('access_denied', 'The person denied this device');
  }
  const offline = record.scopes.includes('offline_access') && allowsRefresh(app);
  // The refresh token family of a device sign-in is named by the device code's hash.
  const { accessToken, access, refreshToken, refresh } = newTokenPair(
    deps,
    {
      clientId: app.clientId,
      userId: user.id,
      scopes: record.scopes,
      codeHash: null,
      refresh: offline ? { familyId: record.deviceCodeHash, authTime: record.authTime ?? now, amr: record.amr } : null,
    },
    now,
  );
  if (!(await deps.store.deviceAuthorizations.redeemDeviceAuthorization(record.deviceCodeHash, now, access, refresh))) {
    throw new InvalidGrant('Device code has already been used');
  }
  const result: TokenResult = { access_token: accessToken, token_type: 'Bearer', expires_in: EXPIRES_IN_SECONDS };
  if (refreshToken !== undefined) result.refresh_token = refreshToken;
  if (record.scopes.includes('openid')) {
    result.id_token = await signIdToken(deps, { user, scopes: record.scopes, clientId: app.clientId, authTime: record.authTime ?? now, amr: record.amr, nonce: null }, now);
  }
  return result;
}

