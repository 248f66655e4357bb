import type { Knex } from 'knex';
import type { Ended, Ends, EventSubject } from '../../domain/security-events.js';
import { revokeFamilies } from '../refresh-tokens/queries.js';
import type { Row } from '../rows.js';

/**
 * Ends what a security event ends (a row of SECURITY_EVENTS, src/domain/security-events.ts) for
 * `subject`, inside the caller's transaction, so the event's own change and its consequences
 * commit together or not at all. The only place sessions, tokens, codes, device approvals, mail
 * links and ways in are ended for a security event; refresh tokens are locked first, in one order
 * (lockRefreshTokens), so it never deadlocks with a rotation or another revocation.
 */
export async function endArtifacts(trx: Knex.Transaction, subject: EventSubject, ends: Ends, now: number): Promise<Ended> {
  const { userId, clientId } = subject;
  const ofSubject: Row = clientId === undefined ? { user_id: userId } : { user_id: userId, client_id: clientId };
  const ended: Ended = { sessions: 0, tokens: 0, codes: 0, deviceCodes: 0, mailLinks: 0, passkeys: 0, upstreamIdentities: 0, authenticatorApp: false };

  if (ends.credentialChange) await trx('users').where({ id: userId }).update({ credentials_changed_at: now });
  if (ends.sessions !== 'none') {
    const sessions = trx('sessions').where({ user_id: userId });
    if (ends.sessions === 'others' && subject.keepSessionIdHash !== undefined) sessions.whereNot({ id_hash: subject.keepSessionIdHash });
    ended.sessions = await sessions.delete();
  }
  // Codes and device approvals first: on PostgreSQL these statements wait for a redemption in
  // flight (its row lock), so the token revocations after them see the tokens it committed.
  // Deleted, not marked used: a redemption of a used code counts as a replay.
  if (ends.codes) ended.codes = await trx('auth_codes').where(ofSubject).whereNull('used_at').delete();
  if (ends.deviceCodes) {
    ended.deviceCodes = await trx('device_authorizations')
      .where(ofSubject)
      .where({ decision: 'approved' })
      .whereNull('used_at')
      .update({ decision: 'denied', auth_time: null, amr: null });
  }
  if (ends.refreshTokens) ended.tokens += await revokeFamilies(trx, ofSubject, now);
  if (ends.accessTokens) {
    ended.tokens += await trx('access_tokens').where(ofSubject).whereNull('revoked_at').where('expires_at', '>', now).update({ revoked_at: now });
  }
  if (ends.mailLinks.length > 0) {
    ended.mailLinks = await trx('email_links').where({ user_id: userId }).whereIn('purpose', ends.mailLinks).whereNull('used_at').update({ used_at: now });
  }
  if (ends.waysIn) {
    ended.passkeys = await trx('passkeys').where({ user_id: userId }).delete();
    ended.upstreamIdentities = await trx('upstream_identities').where({ user_id: userId }).delete();
    await trx('recovery_codes').where({ user_id: userId }).delete();
    ended.authenticatorApp = (await trx('totp_factors').where({ user_id: userId }).whereNotNull('confirmed_at').delete()) > 0;
    await trx('totp_factors').where({ user_id: userId }).delete();
  }
  return ended;
}
