/**
 * The account page's linked accounts (src/pages/linked-accounts.ts): lists the linked identities
 * and unlinks one, as removing a passkey does (removal.ts): the password again, or a confirmation
 * with one of the account's passkeys; the account's last way in is refused (409), said in the
 * section's result slot. The "Link <name>" forms are plain forms: the script only shows those of
 * the upstreams not linked.
 */
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { api } from './api.js';
import { all, byId, el } from './dom.js';
import { formatDate as when } from './format.js';
import { removalControls } from './removal.js';
import { loading, refused } from './result.js';

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
  const removal = removalControls({
    slot: k.result,
    id: i.id,
    what: `Unlinking ${i.upstream_name}`,
    verb: 'Unlink',
    label: `Unlink ${i.upstream_name}${i.email === undefined ? '' : ` (${i.email})`}`,
    question: `Unlink your ${i.upstream_name} account? Signing in with ${i.upstream_name} will no longer sign you in here.`,
    done: `Unlinked ${i.upstream_name}`,
    names: { form: 'upstream-unlink', button: 'unlink-upstream' },
    send: (body) => api.DELETE('/api/account/upstream-identities/{identityId}', { params: { path: { identityId: String(i.id) } }, body }),
    reload: load,
  });
  return el(
    'li',
    { class: 'upstream-identity', 'data-identity-id': i.id },
    el('strong', { class: 'upstream-name', text: i.upstream_name }),
    i.email === undefined ? null : el('span', { class: 'upstream-email', text: ` ${i.email}` }),
    el('div', { class: 'upstream-times', text: `Linked ${when(i.linked_at)}, ${used}` }),
    ...removal,
  );
}

/** Starts the section, when the page has it (it is left out with no upstream enabled and nothing linked). */
export function startLinkedAccounts(): void {
  if (!document.getElementById(k.list)) return;
  loading(k.result, 'Loading the linked accounts', load);
}
