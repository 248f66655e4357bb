// The account page's control sections (src/pages/account-control.ts): connected apps, password
// change, sessions, account deletion. Every call goes through the JSON API with the CSRF token.
'use strict';
(function () {
  const { api, said, refused, el, formatDate: when, deviceName } = window.idp;
  // What each scope lets an app do: the consent page's words, rendered into the page (a <template>).
  const scopeWords = new Map(
    [...document.getElementById('scope-descriptions').content.querySelectorAll('li')].map((li) => [li.dataset.scope, li.textContent]),
  );

  async function loadGrants() {
    const res = await api('GET', '/api/account/grants');
    const box = document.getElementById('grants');
    if (!res.ok) return refused('grants-result', res, 'Loading the connected apps');
    if (res.data.grants.length === 0) return box.replaceChildren(el('p', { text: 'No app has access to your account.' }));
    box.replaceChildren(
      ...res.data.grants.map((g) =>
        el(
          'section',
          { class: 'grant', 'data-client-id': g.client_id },
          el('strong', { class: 'grant-app', text: g.app_name }),
          el('span', { text: ` by ${g.owner.name}` }),
          el('div', { class: 'grant-scopes' }, 'It can:', el('ul', {}, ...g.scopes.map((s) => el('li', { 'data-scope': s, text: scopeWords.get(s) || s })))),
          el('div', { class: 'grant-times', text: `Granted ${when(g.granted_at)}, last used ${when(g.last_used_at)}` }),
          el('button', { type: 'button', class: 'secondary revoke-grant', text: 'Revoke access', onclick: () => revoke(g) }),
        ),
      ),
    );
  }

  async function revoke(grant) {
    if (!confirm(`Revoke the access of ${grant.app_name}? Its tokens stop working at once, and it must ask you again.`)) return;
    const res = await api('DELETE', `/api/account/grants/${encodeURIComponent(grant.client_id)}`);
    if (!res.ok) return refused('grants-result', res, 'Revoking access');
    said('grants-result', `Access of ${grant.app_name} revoked`);
    loadGrants();
  }

  async function loadSessions() {
    const res = await api('GET', '/api/account/sessions');
    if (!res.ok) return refused('sessions-result', res, 'Loading the sessions');
    document.getElementById('sessions').replaceChildren(
      ...res.data.sessions.map((s) =>
        el(
          'li',
          { class: 'session', 'data-session-id': s.id, 'data-current': s.current ? 'true' : 'false' },
          el('span', { class: 'session-agent', title: s.user_agent || undefined, text: deviceName(s.user_agent) }),
          s.current ? el('strong', { text: ' (this browser)' }) : null,
          el('div', { text: `Signed in ${when(s.started_at)}, last seen ${when(s.last_seen_at)}` }),
          el('button', { type: 'button', class: 'secondary end-session', text: 'Sign out', onclick: () => endSession(s) }),
        ),
      ),
    );
  }

  async function endSession(session) {
    const res = await api('DELETE', `/api/account/sessions/${encodeURIComponent(session.id)}`);
    if (!res.ok) return refused('sessions-result', res, 'Signing out the session');
    if (session.current) return location.assign('/?done=signed-out');
    said('sessions-result', 'Session signed out');
    loadSessions();
  }

  document.getElementById('signout-everywhere').addEventListener('click', async () => {
    const res = await api('POST', '/api/account/signout-everywhere');
    if (!res.ok) return refused('sessions-result', res, 'Signing out everywhere');
    location.assign('/?done=signed-out-everywhere');
  });

  // A wrong password (403) or too many tries (429); a 403 of the CSRF check is not the field's fault.
  const wrongPassword = (res) => res.status === 429 || (res.status === 403 && !/CSRF/.test((res.data && res.data.message) || ''));

  // A refusal keeps what was typed and marks the field to fix; the passwords go only once changed.
  document.getElementById('password-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const current = document.getElementById('current-password');
    const next = document.getElementById('new-password');
    const res = await api('POST', '/api/account/password', { current_password: current.value, new_password: next.value });
    if (!res.ok) return refused('password-result', res, 'Changing the password', res.status === 400 ? next : wrongPassword(res) && current);
    current.value = '';
    next.value = '';
    said('password-result', 'Password changed; every other session was signed out');
    loadSessions();
  });

  document.getElementById('delete-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const password = document.getElementById('delete-password');
    const confirmation = document.getElementById('delete-confirm');
    const res = await api('POST', '/api/account/deletion', { password: password.value, confirm: confirmation.value });
    if (!res.ok) return refused('delete-result', res, 'Deleting the account', res.status === 400 ? confirmation : wrongPassword(res) && password);
    location.assign('/?done=account-deleted');
  });

  loadGrants();
  loadSessions();
})();
