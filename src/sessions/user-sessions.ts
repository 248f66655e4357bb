/** A user's signed-in sessions as the account page lists and ends them, by public id only. */
import type { components } from '../../generated/api.js';
import { NotFound } from '../domain/errors.js';
import type { SessionMeta } from '../domain/sessions.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import type { Store } from '../store/types.js';

type UserSessionView = components['schemas']['UserSession'];

function sessionView(m: SessionMeta, currentPublicId: string | undefined): UserSessionView {
  const view: UserSessionView = { id: m.publicId, started_at: m.startedAt, last_seen_at: m.lastSeenAt, current: m.publicId === currentPublicId };
  if (m.userAgent !== null) view.user_agent = m.userAgent;
  if (m.signInIp !== null) view.ip = m.signInIp;
  return view;
}

export async function listUserSessions(deps: { store: Pick<Store, 'sessions'>; now: () => number }, userId: number, currentPublicId: string | undefined): Promise<UserSessionView[]> {
  return (await deps.store.sessions.listUserSessions(userId, deps.now())).map((m) => sessionView(m, currentPublicId));
}

export async function endUserSession(store: Pick<Store, 'sessions'>, userId: number, publicId: string): Promise<void> {
  if (!(await store.sessions.deleteUserSession(userId, publicId))) throw new NotFound('Session not found');
}

/**
 * "Sign out everywhere", this browser included: every session of the user, with what the security
 * event `signed_out_everywhere` ends beside them (codes and device approvals made in them); how
 * many sessions ended.
 */
export async function signOutEverywhere(deps: { store: Pick<Store, 'securityEvents'>; now: () => number }, userId: number): Promise<number> {
  return (await deps.store.securityEvents.recordSecurityEvent({ userId }, SECURITY_EVENTS.signed_out_everywhere, deps.now()))?.sessions ?? 0;
}
