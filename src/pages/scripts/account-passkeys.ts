/**
 * The account page's passkeys (src/pages/passkeys.ts): list, add (a WebAuthn registration),
 * rename, remove. Adding and removing a passkey ask for the password again, or a confirmation with
 * one of the account's passkeys (removing as removal.ts does it).
 */
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { api } from './api.js';
import { proofOf } from './account-confirmation.js';
import { byId, el, maybeById } from './dom.js';
import { formatDate as when } from './format.js';
import { confirmWithPasskey } from './passkey-confirmation.js';
import { acting, cleared, loading, refused, said } from './result.js';
import { removalControls } from './removal.js';
import { register } from './webauthn.js';

type Passkey = components['schemas']['Passkey'];

const k = ids.passkeys;
const list = byId(k.list);
const addForm = byId(k.addForm, HTMLFormElement);
// Neither for an account without a password: it confirms in the "Confirm it is you" card.
const addPassword = maybeById(k.addPassword, HTMLInputElement);
const addWithPasskey = maybeById(k.addWithPasskey, HTMLButtonElement);
const confirmCard = maybeById(ids.confirmation.passkey, HTMLButtonElement);

async function load(): Promise<void> {
  const res = await api.GET('/api/account/passkeys');
  if (!res.data) return refused(k.result, res, 'Loading the passkeys');
  if (addWithPasskey) addWithPasskey.hidden = res.data.passkeys.length === 0;
  if (confirmCard) confirmCard.hidden = res.data.passkeys.length === 0 || !browserSupportsWebAuthn();
  if (res.data.passkeys.length === 0) list.replaceChildren(el('li', { text: 'No passkeys yet.' }));
  else list.replaceChildren(...res.data.passkeys.map(item));
}

function item(p: Passkey): HTMLLIElement {
  const name = el('input', { class: 'passkey-name', 'aria-label': 'Passkey name', maxlength: '64', required: true, value: p.name });
  const used = p.last_used_at === undefined ? 'never used' : `last used ${when(p.last_used_at)}`;
  const removal = removalControls({
    slot: k.result,
    id: p.id,
    what: 'Removing the passkey',
    verb: 'Remove',
    question: `Remove the passkey "${p.name}"? It will no longer sign you in.`,
    done: `Removed ${p.name}`,
    names: { form: 'passkey-remove', button: 'remove-passkey' },
    password: addPassword !== undefined,
    send: (body) => api.DELETE('/api/account/passkeys/{passkeyId}', { params: { path: { passkeyId: String(p.id) } }, body }),
    reload: load,
  });
  return el(
    'li',
    { class: 'passkey', 'data-passkey-id': p.id },
    el(
      'form',
      { class: 'inline rename-form', onsubmit: acting(k.result, 'Renaming the passkey', () => rename(p, name)) },
      name,
      el('button', { type: 'submit', class: 'secondary rename-passkey', text: 'Rename' }),
    ),
    el('div', { class: 'passkey-times', text: `Added ${when(p.created_at)}, ${used}${p.synced ? ' (synced)' : ''}` }),
    ...removal,
  );
}

async function rename(passkey: Passkey, input: HTMLInputElement): Promise<void> {
  const res = await api.PATCH('/api/account/passkeys/{passkeyId}', { params: { path: { passkeyId: String(passkey.id) } }, body: { name: input.value } });
  if (!res.data) return refused(k.result, res, 'Renaming the passkey', res.response.status === 400 && input);
  said(k.result, `Passkey renamed to ${res.data.name}`);
  await load();
}

// An empty password sends none: a passkey confirmation of the session may stand in for it.
async function add(): Promise<void> {
  const what = 'Adding a passkey';
  const options = await api.POST('/api/account/passkeys/options', { body: proofOf(addPassword) });
  if (addPassword) addPassword.value = '';
  if (!options.data) return refused(k.addResult, options, what, addPassword ?? false);
  cleared(k.addResult);
  let credential;
  try {
    credential = await register(options.data);
  } catch (err) {
    return refused(k.result, err instanceof Error ? err.message : String(err), what);
  }
  const res = await api.POST('/api/account/passkeys', { body: { credential } });
  if (!res.data) return refused(k.result, res, what);
  said(k.result, `Added ${res.data.name}`);
  await load();
}

async function confirmBeforeAdding(): Promise<void> {
  const failure = await confirmWithPasskey();
  if (failure) return refused(k.addResult, failure);
  cleared(k.addResult);
  if (addPassword) addPassword.required = false;
  said(k.result, 'Confirmed with a passkey: for 5 minutes, leave the password empty.');
}

export function startPasskeys(): void {
  if (!browserSupportsWebAuthn()) {
    addForm.hidden = true;
    byId(k.unsupported).hidden = false;
  }
  addForm.addEventListener('submit', acting(k.addResult, 'Adding a passkey', add));
  addWithPasskey?.addEventListener('click', acting(k.addResult, 'Confirming with a passkey', confirmBeforeAdding));
  loading(k.result, 'Loading the passkeys', load);
}
