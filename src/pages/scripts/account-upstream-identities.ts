/**
 * The account page's linked accounts (src/pages/linked-accounts.ts): lists the linked identities
 * and unlinks one. Unlinking asks as linking does, up front: the item's password field beside its
 * "Unlink" button (left empty while a confirmation of the session stands in for it); an account
 * without a password has none and confirms in the "Confirm it is you" card. No dialog, no second
 * question. The account's last way in is refused (409), said in the section's result slot; a
 * wrong password beside its field. The "Link <name>" forms are plain forms: the script only shows
 * those of the upstreams not linked.
 */
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { proofOf } from './account-confirmation.js';
import { api, reasonOf } from './api.js';
import { all, byId, el } from './dom.js';
import { formatDate as when } from './format.js';
import { acting, loading, refused, said } from './result.js';

type UpstreamIdentity = components['schemas']['UpstreamIdentity'];

const k = ids.linkedAccounts;
// An account without a password has the "Confirm it is you" card, and no password to type here.
const hasPassword = document.getElementById(ids.confirmation.section) === null;

async function load(): Promise<void> {
  const res = await api.GET('/api/account/upstream-identities');
  if (!res.data) return refused(k.result, res, 'Loading the linked accounts');
  const { identities } = res.data;
  const list = byId(k.list);
  if (identities.length === 0) list.replaceChildren(el('li', { text: 'No linked accounts.' }));
  else list.replaceChildren(...identities.map(item));
  const linked = new Set(identities.map((i) => i.upstream));
  for (const form of all<HTMLFormElement>('form.link-upstream')) form.hidden = linked.has(form.dataset.upstream ?? '');
}

function item(i: UpstreamIdentity): HTMLLIElement {
  const used = i.last_used_at === undefined ? 'never used' : `last used ${when(i.last_used_at)}`;
  const what = `Unlinking ${i.upstream_name}`;
  const errorId = `upstream-unlink-error-${i.id}`;
  const password = hasPassword
    ? el('input', { type: 'password', class: 'upstream-unlink-password', autocomplete: 'current-password', maxlength: '256', 'aria-describedby': errorId })
    : undefined;
  const error = el('p', { class: 'error upstream-unlink-error', id: errorId, role: 'alert' });

  async function unlink(): Promise<void> {
    const res = await api.DELETE('/api/account/upstream-identities/{identityId}', { params: { path: { identityId: String(i.id) } }, body: proofOf(password) });
    if (password) password.value = '';
    const status = res.response.status;
    if (res.response.ok) {
      await load();
      return said(k.result, `Unlinked ${i.upstream_name}`);
    }
    if (status === 409 || status === 404 || !password) {
      refused(k.result, res, what);
      if (status === 404) await load();
      return;
    }
    password.setAttribute('aria-invalid', 'true');
    error.textContent = `${what} failed: ${reasonOf(res)}`;
    password.focus();
  }

  return el(
    'li',
    { class: 'upstream-identity', 'data-identity-id': i.id },
    el('strong', { class: 'upstream-name', text: i.upstream_name }),
    i.email === undefined ? null : el('span', { class: 'upstream-email', text: ` ${i.email}` }),
    el('div', { class: 'upstream-times', text: `Linked ${when(i.linked_at)}, ${used}` }),
    el(
      'form',
      { class: 'stack upstream-unlink', onsubmit: acting(k.result, what, unlink) },
      password ? el('label', {}, `Your password, to unlink ${i.upstream_name}`, ' ', password) : null,
      error,
      el('button', {
        type: 'submit',
        class: 'secondary unlink-upstream',
        text: 'Unlink',
        'aria-label': `Unlink ${i.upstream_name}${i.email === undefined ? '' : ` (${i.email})`}`,
      }),
    ),
  );
}

/** Starts the section, when the page has it (it is left out with no upstream enabled and nothing linked). */
export function startLinkedAccounts(): void {
  if (!document.getElementById(k.list)) return;
  loading(k.result, 'Loading the linked accounts', load);
}
