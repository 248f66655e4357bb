/** A user's signed-in sessions as the account page lists and ends them, by public id only. */
import type { components } from '../../generated/api.js';
import { NotFound } from '../domain/errors.js';
import type { SessionMeta } from '../domain/sessions.js';
import type { SessionStore } from '../store/sessions/store.js';

type UserSessionView = components['schemas']['UserSession'];

function sessionView(m: SessionMeta, currentPublicId: string | undefined): UserSessionView {
  const view: UserSessionView = { id: m.publicId, started_at: m.startedAt, last_seen_at: m.lastSeenAt, current: m.publicId === currentPublicId };
  if (m.userAgent !== null) view.user_agent = m.userAgent;
  if (m.signInIp !== null) view.ip = m.signInIp;
  return view;
}

export async function listUserSessions(deps: { store: SessionStore; now: () => number }, userId: number, currentPublicId: string | undefined): Promise<UserSessionView[]> {
  return (await deps.store.listUserSessions(userId, deps.now())).map((m) => sessionView(m, currentPublicId));
}

export async function endUserSession(store: SessionStore, userId: number, publicId: string): Promise<void> {
  if (!(await store.deleteUserSession(userId, publicId))) throw new NotFound('Session not found');
}
