/**
 * The account page's control sections (src/pages/account-control.ts): connected apps, password
 * change, sessions, account deletion.
 */
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { api, reasonOf, type Answer } from './api.js';
import { proofOf } from './account-confirmation.js';
import { all, byId, el, maybeById } from './dom.js';
import { deviceName, formatDate as when } from './format.js';
import { acting, loading, refused, said } from './result.js';

type Grant = components['schemas']['Grant'];
type Session = components['schemas']['UserSession'];

const c = ids.control;

// What each scope lets an app do: the consent page's words, rendered into the page (a <template>).
const scopeWords = new Map(all<HTMLLIElement>('li', byId(c.scopeDescriptions, HTMLTemplateElement).content).map((li) => [li.dataset.scope, li.textContent]));

async function loadGrants(): Promise<void> {
  const res = await api.GET('/api/account/grants');
  const box = byId(c.grants);
  if (!res.data) return refused(c.grantsResult, res, 'Loading the connected apps');
  if (res.data.grants.length === 0) {
    box.replaceChildren(el('p', { text: 'No app has access to your account.' }));
    return;
  }
  box.replaceChildren(
    ...res.data.grants.map((g) =>
      el(
        'section',
        { class: 'grant', 'data-client-id': g.client_id },
        el('strong', { class: 'grant-app', text: g.app_name }),
        el('span', { text: ` by ${g.owner.name}` }),
        el('div', { class: 'grant-scopes' }, 'It can:', el('ul', {}, ...g.scopes.map((s) => el('li', { 'data-scope': s, text: scopeWords.get(s) ?? s })))),
        el('div', { class: 'grant-times', text: `Granted ${when(g.granted_at)}, last used ${when(g.last_used_at)}` }),
        el('button', { type: 'button', class: 'secondary revoke-grant', text: 'Revoke access', onclick: acting(c.grantsResult, 'Revoking access', () => revoke(g)) }),
      ),
    ),
  );
}

async function revoke(grant: Grant): Promise<void> {
  if (!confirm(`Revoke the access of ${grant.app_name}? Its tokens stop working at once, and it must ask you again.`)) return;
  const res = await api.DELETE('/api/account/grants/{clientId}', { params: { path: { clientId: grant.client_id } } });
  if (!res.response.ok) return refused(c.grantsResult, res, 'Revoking access');
  said(c.grantsResult, `Access of ${grant.app_name} revoked`);
  await loadGrants();
}

async function loadSessions(): Promise<void> {
  const res = await api.GET('/api/account/sessions');
  if (!res.data) return refused(c.sessionsResult, res, 'Loading the sessions');
  byId(c.sessions).replaceChildren(
    ...res.data.sessions.map((s) =>
      el(
        'li',
        { class: 'session', 'data-session-id': s.id, 'data-current': s.current ? 'true' : 'false' },
        el('span', { class: 'session-agent', title: s.user_agent, text: deviceName(s.user_agent) }),
        s.current ? el('strong', { text: ' (this browser)' }) : null,
        s.ip === undefined ? null : el('span', { class: 'session-ip', text: ` from ${s.ip}` }),
        el('div', { text: `Signed in ${when(s.started_at)}, last seen ${when(s.last_seen_at)}` }),
        el('button', { type: 'button', class: 'secondary end-session', text: 'Sign out', onclick: acting(c.sessionsResult, 'Signing out the session', () => endSession(s)) }),
      ),
    ),
  );
}

async function endSession(session: Session): Promise<void> {
  const res = await api.DELETE('/api/account/sessions/{sessionId}', { params: { path: { sessionId: session.id } } });
  if (!res.response.ok) return refused(c.sessionsResult, res, 'Signing out the session');
  if (session.current) return location.assign('/?done=signed-out');
  said(c.sessionsResult, 'Session signed out');
  await loadSessions();
}

// A wrong password (403) or too many tries (429); a 403 of the CSRF check is not the field's fault.
const wrongPassword = (res: Answer) => res.response.status === 429 || (res.response.status === 403 && !/CSRF/.test(reasonOf(res)));

export function startControl(): void {
  byId(c.signOutEverywhere, HTMLButtonElement).addEventListener(
    'click',
    acting(c.sessionsResult, 'Signing out everywhere', async () => {
      const res = await api.POST('/api/account/signout-everywhere');
      if (!res.response.ok) return refused(c.sessionsResult, res, 'Signing out everywhere');
      location.assign('/?done=signed-out-everywhere');
    }),
  );

  // A refusal keeps what was typed and marks the field to fix; the passwords go only once changed.
  const passwordForm = maybeById(c.passwordForm, HTMLFormElement);
  if (passwordForm) {
    const current = byId(c.currentPassword, HTMLInputElement);
    const next = byId(c.newPassword, HTMLInputElement);
    passwordForm.addEventListener(
      'submit',
      acting(c.passwordResult, 'Changing the password', async () => {
        const res = await api.POST('/api/account/password', { body: { current_password: current.value, new_password: next.value } });
        if (!res.response.ok) return refused(c.passwordResult, res, 'Changing the password', res.response.status === 400 ? next : wrongPassword(res) && current);
        current.value = '';
        next.value = '';
        said(c.passwordResult, 'Password changed; every other session was signed out');
        await loadSessions();
      }),
    );
  }

  // An account without a password sets a first one, once it confirmed who it is; then the page asks for it everywhere.
  const firstForm = maybeById(c.firstPasswordForm, HTMLFormElement);
  if (firstForm) {
    const first = byId(c.firstPassword, HTMLInputElement);
    firstForm.addEventListener(
      'submit',
      acting(c.firstPasswordResult, 'Setting a password', async () => {
        const res = await api.POST('/api/account/first-password', { body: { new_password: first.value } });
        if (!res.response.ok) return refused(c.firstPasswordResult, res, 'Setting a password', /characters/.test(reasonOf(res)) && first);
        // Every section asks for the password from now on: the page is made again with its fields.
        location.reload();
      }),
    );
  }

  const password = maybeById(c.deletePassword, HTMLInputElement);
  const confirmation = byId(c.deleteConfirm, HTMLInputElement);
  byId(c.deleteForm, HTMLFormElement).addEventListener(
    'submit',
    acting(c.deleteResult, 'Deleting the account', async () => {
      const res = await api.POST('/api/account/deletion', { body: { ...proofOf(password), confirm: confirmation.value } });
      if (!res.response.ok) return refused(c.deleteResult, res, 'Deleting the account', res.response.status === 400 ? /name/.test(reasonOf(res)) && confirmation : wrongPassword(res) && (password ?? false));
      location.assign('/?done=account-deleted');
    }),
  );

  loading(c.grantsResult, 'Loading the connected apps', loadGrants);
  loading(c.sessionsResult, 'Loading the sessions', loadSessions);
}
