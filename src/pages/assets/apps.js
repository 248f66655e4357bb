// The apps page: register, list, rotate, delete, and build the traditional-flow link.
'use strict';
(function () {
  const { api, el, status, failed } = window.idp;
  const list = document.getElementById('apps');
  // The scope checkboxes come from the server, which reads the contract's list of scopes.
  const scopeChoices = document.getElementById('scope-choices');

  function showSecret(name, clientId, secret) {
    document.getElementById('new-secret-app').textContent = name;
    document.getElementById('new-client-id').textContent = clientId;
    document.getElementById('new-client-secret').textContent = secret;
    document.getElementById('new-secret').hidden = false;
  }

  function linkBuilder(app) {
    const uri = el('select', { class: 'redirect-uri' }, ...app.redirect_uris.map((u) => el('option', { value: u, text: u })));
    const choices = scopeChoices.content.cloneNode(true);
    const scopes = [...choices.querySelectorAll('input')];
    const state = el('input', { class: 'state', placeholder: 'state (any text, returned to you)', value: 'state123' });
    const out = el('a', { class: 'flow-link', target: '_blank', rel: 'noopener' });
    const update = () => {
      const params = new URLSearchParams({
        response_type: 'code',
        client_id: app.client_id,
        redirect_uri: uri.value,
        scope: scopes.filter((box) => box.checked).map((box) => box.value).join(' '),
      });
      if (state.value) params.set('state', state.value);
      const url = `${location.origin}/oauth?${params}`;
      out.href = url;
      out.textContent = url;
    };
    for (const input of [uri, ...scopes, state]) input.addEventListener('input', update);
    update();
    return el('fieldset', { class: 'builder' }, el('legend', { text: 'Sign-in link (traditional flow)' }),
      app.public ? el('p', { class: 'pkce-note', text: 'A public client adds its own code_challenge and code_challenge_method=S256 to this link.' }) : null,
      el('label', { text: 'Redirect URI ' }, uri),
      choices,
      el('label', { text: 'State ' }, state),
      el('p', {}, out));
  }

  function render(apps) {
    if (!apps.length) return list.replaceChildren(el('p', { text: 'No apps yet.' }));
    list.replaceChildren(...apps.map((app) => el('section', { class: 'card app', 'data-client-id': app.client_id },
      el('h3', { text: app.name }),
      el('p', {}, 'client_id ', el('code', { class: 'client-id', text: app.client_id })),
      el('p', { class: 'client-type', text: app.public ? 'Public client: no secret; every sign-in needs PKCE (S256)' : 'Confidential client (has a secret)' }),
      el('p', { text: `Redirect URIs: ${app.redirect_uris.join(', ')}` }),
      app.post_logout_redirect_uris.length ? el('p', { class: 'post-logout-uris', text: `Post-logout redirect URIs: ${app.post_logout_redirect_uris.join(', ')}` }) : null,
      linkBuilder(app),
      el('div', { class: 'actions' },
        // A public app has no secret to rotate.
        app.public ? null : el('button', { type: 'button', class: 'rotate secondary', text: 'Rotate secret', onclick: () => rotate(app) }),
        el('button', { type: 'button', class: 'delete danger', text: 'Delete', onclick: () => remove(app) })))));
  }

  async function load() {
    const res = await api('GET', '/api/apps');
    if (!res.ok) return failed(res, 'Loading your apps');
    render(res.data.apps);
  }

  async function rotate(app) {
    if (!confirm(`Replace the secret of ${app.name}? The old one stops working at once.`)) return;
    const res = await api('POST', `/api/apps/${encodeURIComponent(app.client_id)}/secret`);
    if (!res.ok) return failed(res, 'Rotating the secret');
    showSecret(app.name, res.data.client_id, res.data.client_secret);
    status('New secret made');
  }

  async function remove(app) {
    if (!confirm(`Delete ${app.name}? Its codes and tokens stop working.`)) return;
    const res = await api('DELETE', `/api/apps/${encodeURIComponent(app.client_id)}`);
    if (!res.ok) return failed(res, 'Deleting the app');
    status(`Deleted ${app.name}`);
    load();
  }

  document.getElementById('register-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = document.getElementById('app-name').value;
    const lines = (id) => document.getElementById(id).value.split('\n').map((s) => s.trim()).filter(Boolean);
    const body = { name, redirect_uris: lines('redirect-uris'), post_logout_redirect_uris: lines('post-logout-redirect-uris') };
    if (document.getElementById('app-public').checked) body.public = true;
    const res = await api('POST', '/api/apps', body);
    if (!res.ok) return failed(res, 'Registering the app');
    // A public app has no secret: nothing to show but a note.
    if (res.data.client_secret === undefined) document.getElementById('new-secret').hidden = true;
    else showSecret(res.data.name, res.data.client_id, res.data.client_secret);
    status(res.data.public ? `Registered ${res.data.name} (public client: no secret; use PKCE)` : `Registered ${res.data.name}`);
    e.target.reset();
    load();
  });
  load();
})();
