/** Rows of the device_authorizations table as records (src/domain/device-authorizations.ts), and records as rows. */
import type { DeviceAuthorizationRecord, DeviceDecision } from '../../domain/device-authorizations.js';
import { type Row, num, numOrNull, scopesOf } from '../rows.js';

/** The decision column: the two the domain knows, anything else (none yet) as null. */
function decisionOf(value: unknown): DeviceDecision | null {
  return value === 'approved' || value === 'denied' ? value : null;
}

export function toDeviceAuthorization(r: Row): DeviceAuthorizationRecord {
  return {
    deviceCodeHash: String(r.device_code_hash),
    userCodeHash: String(r.user_code_hash),
    clientId: String(r.client_id),
    scopes: scopesOf(r.scopes),
    intervalSeconds: num(r.interval_seconds),
    lastPolledAt: numOrNull(r.last_polled_at),
    decision: decisionOf(r.decision),
    userId: numOrNull(r.user_id),
    authTime: numOrNull(r.auth_time),
    amr: typeof r.amr === 'string' ? r.amr.split(' ').filter((v) => v !== '') : null,
    decidedAt: numOrNull(r.decided_at),
    usedAt: numOrNull(r.used_at),
    expiresAt: num(r.expires_at),
    createdAt: num(r.created_at),
  };
}

export function deviceAuthorizationRow(d: DeviceAuthorizationRecord): Row {
  return {
    device_code_hash: d.deviceCodeHash,
    user_code_hash: d.userCodeHash,
    client_id: d.clientId,
    scopes: d.scopes.join(' '),
    interval_seconds: d.intervalSeconds,
    last_polled_at: d.lastPolledAt,
    decision: d.decision,
    user_id: d.userId,
    auth_time: d.authTime,
    amr: d.amr === null ? null : d.amr.join(' '),
    decided_at: d.decidedAt,
    used_at: d.usedAt,
    expires_at: d.expiresAt,
    created_at: d.createdAt,
  };
}
