/**
 * Suspensions as the rest of the service meets them: which one is in force, what the suspended
 * person is told (sign-in's refusal, the page after a session it ended, the mail), and the end a
 * moderator or the operator gives. The actions that suspend and lift are in moderation.ts.
 */
import { Forbidden, InvalidInput } from '../domain/errors.js';
import type { SuspensionRecord, UserRecord } from '../domain/users.js';

/** The suspension in force at `now`: none when there is none or its end has passed. */
export function activeSuspension(user: Pick<UserRecord, 'suspension'>, now: number): SuspensionRecord | undefined {
  const s = user.suspension;
  return s && (s.until === null || s.until > now) ? s : undefined;
}

/** "2026-12-01 12:00 UTC" */
function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function suspensionMessage(s: SuspensionRecord): string {
  return s.until === null ? `This account is suspended: ${s.reason}` : `This account is suspended until ${utcMinute(s.until)}: ${s.reason}`;
}

/**
 * What the account's own person is told of a suspension in force at `now` (the reason and the
 * end, as sign-in refuses with), or undefined when none is: the page a session ended by the
 * suspension shows next (src/http/pages.ts), and the mail that tells them (src/accounts/notices.ts).
 */
export function suspensionNotice(user: Pick<UserRecord, 'suspension'>, now: number): string | undefined {
  const s = activeSuspension(user, now);
  return s && suspensionMessage(s);
}

/**
 * Refuses (403, with the reason and the end) to sign in or issue a code for a suspended account:
 * called where every sign-in ends (beginSignedInSession), before the second step, and where every
 * code is issued (issueCode).
 */
export function refuseSuspended(user: Pick<UserRecord, 'suspension'>, now: number): void {
  const s = activeSuspension(user, now);
  if (s) throw new Forbidden(suspensionMessage(s));
}

/** `until` as the API and the CLI take it: ms since the epoch or an ISO 8601 date-time, in the future. */
export function parseUntil(raw: number | string | undefined, now: number): number | null {
  if (raw === undefined) return null;
  if (typeof raw === 'string' && !ISO_DATE_TIME.test(raw)) {
    throw new InvalidInput('until must be ms since the Unix epoch or an ISO 8601 date-time such as 2026-12-01T12:00:00Z');
  }
  const ms = typeof raw === 'number' ? raw : Date.parse(raw);
  if (!Number.isSafeInteger(ms) || ms <= now) throw new InvalidInput('until must be in the future');
  return ms;
}

/** A date (UTC midnight), or a date and time with seconds optional and an offset (`Z` or `+hh:mm`). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
