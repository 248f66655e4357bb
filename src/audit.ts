/**
 * The audit trail: security events as structured log lines, one per event, each with an `event`
 * field naming it. Never pass a secret (password, code, token, client secret, link) as a field:
 * ids, names, client ids, addresses and user agents only.
 */
import type { Logger } from 'pino';
import type { Metrics } from './metrics/metrics.js';

export type AuditEvent =
  | 'sign_in'
  | 'sign_in_failed'
  | 'sign_out'
  | 'sign_up'
  | 'password_changed'
  | 'app_created'
  | 'app_secret_rotated'
  | 'app_deleted'
  | 'game_created'
  | 'consent_given'
  | 'code_replay_detected'
  | 'token_revoked'
  | 'grant_revoked'
  | 'account_deleted'
  | 'email_verified'
  | 'password_reset_requested'
  | 'password_reset'
  | 'email_change_requested'
  | 'email_changed';

export type AuditFields = Record<string, string | number | boolean | null | undefined | readonly string[]>;

export type Audit = (event: AuditEvent, fields?: AuditFields) => void;

/**
 * Audit lines are `info` lines with `audit: true`, written even when LOG_LEVEL is warn or error
 * (those quiet the request log, not security events); only LOG_LEVEL=silent turns them off.
 */
export function createAudit(logger: Logger, metrics?: Metrics): Audit {
  const log = logger.child({ audit: true }, { level: logger.level === 'silent' ? 'silent' : 'info' });
  if (!metrics) return (event, fields = {}) => log.info({ ...fields, event }, event);
  // Every event is counted too: code replays and failed sign-ins are metrics of their own.
  return (event, fields = {}) => {
    metrics.auditEvent(event, fields);
    log.info({ ...fields, event }, event);
  };
}
