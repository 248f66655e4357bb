/**
 * The account page's linked accounts (src/pages/linked-accounts.ts): lists the linked identities
 * and unlinks one. Unlinking asks for the password again, or a confirmation with one of the
 * account's passkeys, as removing a passkey does; the account's last way in is refused (409), said
 * in the section's result slot. The "Link <name>" forms are plain forms: the script only shows
 * those of the upstreams not linked.
 */
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { api, reasonOf } from './api.js';
import { all, byId, el } from './dom.js';
import { formatDate as when } from './format.js';
import { confirmWithPasskey } from './passkey-confirmation.js';
import { acting, loading, refused, said } from './result.js';

type UpstreamIdentity = components['schemas']['UpstreamIdentity'];

const k = ids.linkedAccounts;

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
  const errorId = `upstream-unlink-error-${i.id}`;
  const password = el('input', { type: 'password', class: 'upstream-unlink-password', autocomplete: 'current-password', required: true, maxlength: '256', 'aria-describedby': errorId });
  const error = el('p', { class: 'error upstream-unlink-error', id: errorId, role: 'alert' });
  const what = `Unlinking ${i.upstream_name}`;
  const confirmForm = el(
    'form',
    { class: 'stack upstream-unlink-confirm', hidden: true, onsubmit: acting(k.result, what, () => unlink(i, { password: password.value }, password, error)) },
    el('p', { text: 'Type your password, or confirm with a passkey, to unlink it.' }),
    el('label', {}, 'Password ', password),
    error,
    el('button', { type: 'submit', class: 'danger unlink-upstream-confirmed', text: 'Unlink with password' }),
    el('button', { type: 'button', class: 'secondary unlink-upstream-with-passkey', text: 'Confirm with a passkey', onclick: acting(k.result, what, () => unlinkWithPasskey(i, password, error)) }),
  );
  return el(
    'li',
    { class: 'upstream-identity', 'data-identity-id': i.id },
    el('strong', { class: 'upstream-name', text: i.upstream_name }),
    i.email === undefined ? null : el('span', { class: 'upstream-email', text: ` ${i.email}` }),
    el('div', { class: 'upstream-times', text: `Linked ${when(i.linked_at)}, ${used}` }),
    el('button', {
      type: 'button',
      class: 'secondary unlink-upstream',
      text: 'Unlink',
      'aria-label': `Unlink ${i.upstream_name}${i.email === undefined ? '' : ` (${i.email})`}`,
      onclick: acting(k.result, what, async () => {
        if (confirm(`Unlink your ${i.upstream_name} account? Signing in with ${i.upstream_name} will no longer sign you in here.`)) await unlink(i, undefined, password, error);
      }),
    }),
    confirmForm,
  );
}

// Without a body first: a passkey confirmation of the session may stand in for the password; a
// 400 (no such confirmation) shows the item's password form. The last way in (409) and a link
// gone meanwhile (404) are said in the section's slot.
async function unlink(identity: UpstreamIdentity, body: { password?: string } | undefined, password: HTMLInputElement, error: HTMLElement): Promise<void> {
  const res = await api.DELETE('/api/account/upstream-identities/{identityId}', { params: { path: { identityId: String(identity.id) } }, body });
  password.value = '';
  const status = res.response.status;
  if (status === 400 && body === undefined) {
    const form = password.closest('form');
    if (form) form.hidden = false;
    password.focus();
    return;
  }
  if (status === 409 || status === 404) {
    refused(k.result, res, `Unlinking ${identity.upstream_name}`);
    if (status === 404) await load();
    return;
  }
  if (!res.response.ok) {
    password.setAttribute('aria-invalid', 'true');
    error.textContent = `Unlinking ${identity.upstream_name} failed: ${reasonOf(res)}`;
    return;
  }
  await load();
  said(k.result, `Unlinked ${identity.upstream_name}`);
}

async function unlinkWithPasskey(identity: UpstreamIdentity, password: HTMLInputElement, error: HTMLElement): Promise<void> {
  const failure = await confirmWithPasskey();
  if (failure) {
    error.textContent = failure;
    return;
  }
  await unlink(identity, {}, password, error);
}

/** Starts the section, when the page has it (it is left out with no upstream enabled and nothing linked). */
export function startLinkedAccounts(): void {
  if (!document.getElementById(k.list)) return;
  loading(k.result, 'Loading the linked accounts', load);
}
