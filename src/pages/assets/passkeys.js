// The account page's passkeys (src/pages/passkeys.ts): list, add (WebAuthn registration through
// the vendored SimpleWebAuthnBrowser), rename, remove. Every call goes through the JSON API.
'use strict';
(function () {
  const { api, status, failed, el } = window.idp;
  const webauthn = window.SimpleWebAuthnBrowser;
  const when = (ms) => new Date(ms).toLocaleString();
  const list = document.getElementById('passkey-list');
  const addButton = document.getElementById('add-passkey');

  async function load() {
    const res = await api('GET', '/api/account/passkeys');
    if (!res.ok) return failed(res, 'Loading the passkeys');
    if (res.data.passkeys.length === 0) return list.replaceChildren(el('li', { text: 'No passkeys yet.' }));
    list.replaceChildren(...res.data.passkeys.map(item));
  }

  function item(p) {
    const name = el('input', { class: 'passkey-name', 'aria-label': 'Passkey name', maxlength: '64', required: true, value: p.name });
    const used = p.last_used_at === undefined ? 'never used' : `last used ${when(p.last_used_at)}`;
    return el(
      'li',
      { class: 'passkey', 'data-passkey-id': p.id },
      el(
        'form',
        { class: 'inline rename-form', onsubmit: (event) => (event.preventDefault(), rename(p, name.value)) },
        name,
        el('button', { type: 'submit', class: 'secondary rename-passkey', text: 'Rename' }),
      ),
      el('div', { class: 'passkey-times', text: `Added ${when(p.created_at)}, ${used}${p.synced ? ' (synced)' : ''}` }),
      el('button', { type: 'button', class: 'secondary remove-passkey', text: 'Remove', onclick: () => remove(p) }),
    );
  }

  async function rename(passkey, name) {
    const res = await api('PATCH', `/api/account/passkeys/${passkey.id}`, { name });
    if (!res.ok) return failed(res, 'Renaming the passkey');
    status(`Passkey renamed to ${res.data.name}`);
    load();
  }

  async function remove(passkey) {
    if (!confirm(`Remove the passkey "${passkey.name}"? It will no longer sign you in.`)) return;
    const res = await api('DELETE', `/api/account/passkeys/${passkey.id}`);
    if (!res.ok) return failed(res, 'Removing the passkey');
    status(`Removed ${passkey.name}`);
    load();
  }

  async function add() {
    const options = await api('POST', '/api/account/passkeys/options');
    if (!options.ok) return failed(options, 'Adding a passkey');
    let credential;
    try {
      credential = await webauthn.startRegistration({ optionsJSON: options.data });
    } catch (err) {
      return status(`Adding a passkey failed: ${err.message}`, true);
    }
    const res = await api('POST', '/api/account/passkeys', { credential });
    if (!res.ok) return failed(res, 'Adding a passkey');
    status(`Added ${res.data.name}`);
    load();
  }

  if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
    addButton.hidden = true;
    document.getElementById('passkey-unsupported').hidden = false;
  }
  addButton.addEventListener('click', add);
  load();
})();
