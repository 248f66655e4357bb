// The account page's passkeys (src/pages/passkeys.ts): list, add (WebAuthn registration through
// the vendored SimpleWebAuthnBrowser), rename, remove. Every call goes through the JSON API.
// Adding and removing a passkey ask for the password again, or a confirmation with one of the
// account's passkeys (POST /api/account/reauth/passkey).
'use strict';
(function () {
  const { api, said, refused, el, formatDate: when } = window.idp;
  const webauthn = window.SimpleWebAuthnBrowser;
  const list = document.getElementById('passkey-list');
  const addForm = document.getElementById('add-passkey-form');
  const addPassword = document.getElementById('add-passkey-password');
  const addError = document.getElementById('add-passkey-error');
  const addWithPasskey = document.getElementById('add-passkey-with-passkey');

  async function load() {
    const res = await api('GET', '/api/account/passkeys');
    if (!res.ok) return refused('passkeys-result', res, 'Loading the passkeys');
    addWithPasskey.hidden = res.data.passkeys.length === 0;
    if (res.data.passkeys.length === 0) return list.replaceChildren(el('li', { text: 'No passkeys yet.' }));
    list.replaceChildren(...res.data.passkeys.map(item));
  }

  function item(p) {
    const name = el('input', { class: 'passkey-name', 'aria-label': 'Passkey name', maxlength: '64', required: true, value: p.name });
    const used = p.last_used_at === undefined ? 'never used' : `last used ${when(p.last_used_at)}`;
    const errorId = `passkey-remove-error-${p.id}`;
    const password = el('input', { type: 'password', class: 'passkey-remove-password', autocomplete: 'current-password', required: true, maxlength: '256', 'aria-describedby': errorId });
    const error = el('p', { class: 'error passkey-remove-error', id: errorId, role: 'alert' });
    const confirmForm = el(
      'form',
      { class: 'stack passkey-remove-confirm', hidden: true, onsubmit: (event) => (event.preventDefault(), remove(p, { password: password.value }, password, error)) },
      el('p', { text: 'Type your password, or confirm with a passkey, to remove it.' }),
      el('label', {}, 'Password ', password),
      error,
      el('button', { type: 'submit', class: 'danger remove-passkey-confirmed', text: 'Remove with password' }),
      el('button', { type: 'button', class: 'secondary remove-passkey-with-passkey', text: 'Confirm with a passkey', onclick: () => removeWithPasskey(p, password, error) }),
    );
    return el(
      'li',
      { class: 'passkey', 'data-passkey-id': p.id },
      el(
        'form',
        { class: 'inline rename-form', onsubmit: (event) => (event.preventDefault(), rename(p, name)) },
        name,
        el('button', { type: 'submit', class: 'secondary rename-passkey', text: 'Rename' }),
      ),
      el('div', { class: 'passkey-times', text: `Added ${when(p.created_at)}, ${used}${p.synced ? ' (synced)' : ''}` }),
      el('button', { type: 'button', class: 'secondary remove-passkey', text: 'Remove', onclick: () => confirm(`Remove the passkey "${p.name}"? It will no longer sign you in.`) && remove(p, undefined, password, error) }),
      confirmForm,
    );
  }

  async function rename(passkey, input) {
    const res = await api('PATCH', `/api/account/passkeys/${passkey.id}`, { name: input.value });
    if (!res.ok) return refused('passkeys-result', res, 'Renaming the passkey', res.status === 400 ? input : undefined);
    said('passkeys-result', `Passkey renamed to ${res.data.name}`);
    load();
  }

  // Without a body first: a passkey confirmation of the session may stand in for the password;
  // a 400 (no such confirmation) shows the item's password form.
  async function remove(passkey, body, password, error) {
    const res = await api('DELETE', `/api/account/passkeys/${passkey.id}`, body);
    password.value = '';
    if (res.status === 400 && body === undefined) {
      password.closest('form').hidden = false;
      password.focus();
      return;
    }
    if (!res.ok) {
      password.setAttribute('aria-invalid', 'true');
      error.textContent = `Removing the passkey failed: ${(res.data && res.data.message) || `HTTP ${res.status}`}`;
      return;
    }
    said('passkeys-result', `Removed ${passkey.name}`);
    load();
  }

  async function removeWithPasskey(passkey, password, error) {
    const failure = await window.idp.confirmWithPasskey();
    if (failure) return (error.textContent = failure);
    remove(passkey, {}, password, error);
  }

  // An empty password sends none: a passkey confirmation of the session may stand in for it.
  async function add(event) {
    event.preventDefault();
    const proof = addPassword.value === '' ? {} : { password: addPassword.value };
    const options = await api('POST', '/api/account/passkeys/options', proof);
    addPassword.value = '';
    if (!options.ok) {
      addPassword.setAttribute('aria-invalid', 'true');
      addError.textContent = `Adding a passkey failed: ${(options.data && options.data.message) || `HTTP ${options.status}`}`;
      return;
    }
    addPassword.removeAttribute('aria-invalid');
    addError.textContent = '';
    let credential;
    try {
      credential = await webauthn.startRegistration({ optionsJSON: options.data });
    } catch (err) {
      return refused('passkeys-result', err.message, 'Adding a passkey');
    }
    const res = await api('POST', '/api/account/passkeys', { credential });
    if (!res.ok) return refused('passkeys-result', res, 'Adding a passkey');
    said('passkeys-result', `Added ${res.data.name}`);
    load();
  }

  async function confirmBeforeAdding() {
    const failure = await window.idp.confirmWithPasskey();
    if (failure) return (addError.textContent = failure);
    addError.textContent = '';
    addPassword.required = false;
    said('passkeys-result', 'Confirmed with a passkey: for 5 minutes, leave the password empty.');
  }

  if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
    addForm.hidden = true;
    document.getElementById('passkey-unsupported').hidden = false;
  }
  addForm.addEventListener('submit', add);
  addWithPasskey.addEventListener('click', confirmBeforeAdding);
  load();
})();
