/** The apps page: register, list, rotate, delete, and build the traditional-flow link. */
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { api } from './api.js';
import { copying } from './copy.js';
import { pkcePair, type PkcePair } from './pkce.js';
import { all, byId, el } from './dom.js';
import { acting, loading, refused, resultSlotElement, said } from './result.js';

type App = components['schemas']['App'];
type GrantType = components['schemas']['GrantType'];

const DEVICE_GRANT: GrantType = 'urn:ietf:params:oauth:grant-type:device_code';

/** The grants the two choices stand for, in the contract's order: every app keeps authorization_code. */
const grantTypes = (refresh: boolean, device: boolean): GrantType[] => [
  'authorization_code',
  ...(refresh ? (['refresh_token'] as const) : []),
  ...(device ? [DEVICE_GRANT] : []),
];
const hasRefresh = (app: App): boolean => app.grant_types.includes('refresh_token');
const hasDevice = (app: App): boolean => app.grant_types.includes(DEVICE_GRANT);
const REFRESH_LABEL = 'Refresh tokens: let this app keep people signed in (offline_access)';
const DEVICE_LABEL = 'Devices without a browser: let this app sign people in from a console, a TV or a terminal';

const list = byId(ids.apps.list);
// The scope checkboxes come from the server, which reads the contract's list of scopes.
const scopeChoices = byId(ids.apps.scopeChoices, HTMLTemplateElement);
const slot = ids.apps.result;

function showSecret(name: string, clientId: string, secret: string): void {
  byId(ids.apps.newSecretApp).textContent = name;
  byId(ids.apps.newClientId).textContent = clientId;
  byId(ids.apps.newClientSecret).textContent = secret;
  byId(ids.apps.newSecret).hidden = false;
}

/**
 * The traditional-flow link for the redirect URI, scopes and state picked. A public app's link
 * carries the S256 challenge of a verifier this page made (the service refuses a public app
 * without PKCE), and the page shows the exchange that redeems the code with that verifier; a
 * reload makes a new pair.
 */
function linkBuilder(app: App): HTMLFieldSetElement {
  const uri = el('select', { class: 'redirect-uri' }, ...app.redirect_uris.map((u) => el('option', { value: u, text: u })));
  const choices = scopeChoices.content.cloneNode(true) as DocumentFragment;
  // offline_access means nothing to an app without the refresh grant (the provider leaves it out).
  if (!hasRefresh(app)) choices.querySelector('.scope-offline_access')?.closest('label')?.remove();
  const scopes = all<HTMLInputElement>('input', choices);
  const state = el('input', { class: 'state', placeholder: 'state (any text, returned to you)', value: 'state123' });
  const out = el('a', { class: 'flow-link', target: '_blank', rel: 'noopener' });
  const exchange = el('code', { class: 'exchange-command' });
  let pkce: PkcePair | undefined;
  const update = () => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: uri.value,
      scope: scopes
        .filter((box) => box.checked)
        .map((box) => box.value)
        .join(' '),
    });
    if (state.value) params.set('state', state.value);
    if (app.public && !pkce) return;
    if (pkce) {
      params.set('code_challenge', pkce.challenge);
      params.set('code_challenge_method', 'S256');
      exchange.textContent = `curl -s ${location.origin}/api/oauth/token -d grant_type=authorization_code -d code=<code> -d client_id=${app.client_id} --data-urlencode redirect_uri=${uri.value} -d code_verifier=${pkce.verifier}`;
    }
    const url = `${location.origin}/oauth?${params.toString()}`;
    out.href = url;
    out.textContent = url;
  };
  for (const input of [uri, ...scopes, state]) input.addEventListener('input', update);
  update();
  const pkceNote = el('p', { class: 'pkce-note', text: 'A public client needs PKCE: making a code verifier for this link…' });
  if (app.public) {
    void pkcePair().then((pair) => {
      if (!pair) {
        pkceNote.textContent = 'A public client needs PKCE, and this page can make a code verifier only over https (or on localhost): add your own code_challenge and code_challenge_method=S256 to a link.';
        return;
      }
      pkce = pair;
      pkceNote.replaceChildren(
        'A public client needs PKCE: this link carries the S256 challenge of the code verifier ',
        el('code', { class: 'code-verifier', text: pair.verifier }),
        ', made in this page (a reload makes a new one). Redeem the code from the redirect within 5 minutes with it:',
      );
      update();
    });
  }
  return el(
    'fieldset',
    { class: 'builder' },
    el('legend', { text: 'Sign-in link (traditional flow)' }),
    el('label', { text: 'Redirect URI ' }, uri),
    choices,
    el('label', { text: 'State ' }, state),
    el('p', {}, out),
    app.public ? pkceNote : null,
    app.public ? el('p', {}, exchange) : null,
  );
}

const lines = (field: HTMLTextAreaElement) =>
  field.value
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);

/** The app's edit form: name, redirect URIs, post-logout redirect URIs, its grants (client id, secret and type stay). */
function editForm(app: App, itemSlot: string): HTMLDetailsElement {
  const name = el('input', { name: 'name', required: true, maxlength: 64, value: app.name });
  const redirects = el('textarea', { name: 'redirect_uris', rows: 3, required: true, text: app.redirect_uris.join('\n') });
  const postLogout = el('textarea', { name: 'post_logout_redirect_uris', rows: 2, text: app.post_logout_redirect_uris.join('\n') });
  const refresh = el('input', { type: 'checkbox', name: 'refresh_tokens', checked: hasRefresh(app) });
  const device = el('input', { type: 'checkbox', name: 'device_grant', checked: hasDevice(app) });
  const what = 'Saving the app';
  const save = acting(itemSlot, what, async () => {
    const res = await api.PATCH('/api/apps/{clientId}', {
      params: { path: { clientId: app.client_id } },
      body: { name: name.value, redirect_uris: lines(redirects), post_logout_redirect_uris: lines(postLogout), grant_types: grantTypes(refresh.checked, device.checked) },
    });
    if (!res.data) return refused(itemSlot, res, what, res.response.status === 400 && (/post-logout/i.test(res.error?.message ?? '') ? postLogout : /redirect/i.test(res.error?.message ?? '') ? redirects : name));
    // The card again, with what was saved; its result slot moves into it, so the result is said there.
    const box = document.getElementById(itemSlot);
    const fresh = card(res.data);
    document.querySelector(`section.app[data-client-id="${CSS.escape(app.client_id)}"]`)?.replaceWith(fresh);
    if (box) fresh.querySelector(`#${CSS.escape(itemSlot)}`)?.replaceWith(box);
    said(itemSlot, `Saved ${res.data.name}`);
  });
  return el(
    'details',
    { class: 'app-edit' },
    el('summary', { text: 'Edit name, addresses and grants' }),
    el(
      'form',
      { class: 'stack app-edit-form', onsubmit: save },
      el('label', {}, 'Name ', name),
      el('label', {}, 'Redirect URIs ', el('small', { text: 'one per line, 1 to 10, matched exactly' }), redirects),
      el('label', {}, 'Post-logout redirect URIs ', el('small', { text: 'optional; one per line, up to 10' }), postLogout),
      el('label', {}, refresh, ` ${REFRESH_LABEL}`),
      el('label', {}, device, ` ${DEVICE_LABEL}`),
      el('button', { type: 'submit', text: 'Save' }),
    ),
  );
}

function card(app: App): HTMLElement {
  const itemSlot = ids.apps.itemResult(app.client_id);
  return el(
    'section',
    { class: 'card app', 'data-client-id': app.client_id },
    el('h3', { text: app.name }),
    el('p', {}, 'client_id ', el('code', { class: 'client-id', text: app.client_id })),
    el('p', { class: 'client-type', text: app.public ? 'Public client: no secret; every sign-in needs PKCE (S256)' : 'Confidential client (has a secret)' }),
    el('p', { class: 'redirect-uris', text: `Redirect URIs: ${app.redirect_uris.join(', ')}` }),
    el('p', { class: 'refresh-tokens', text: hasRefresh(app) ? 'Refresh tokens: on (people who consent to offline_access stay signed in)' : 'Refresh tokens: off' }),
    el('p', { class: 'device-grant', text: hasDevice(app) ? 'Devices without a browser: on (people approve on /device)' : 'Devices without a browser: off' }),
    app.post_logout_redirect_uris.length ? el('p', { class: 'post-logout-uris', text: `Post-logout redirect URIs: ${app.post_logout_redirect_uris.join(', ')}` }) : null,
    linkBuilder(app),
    editForm(app, itemSlot),
    el(
      'div',
      { class: 'actions' },
      // A public app has no secret to rotate.
      app.public ? null : el('button', { type: 'button', class: 'rotate secondary', text: 'Rotate secret', onclick: acting(itemSlot, 'Rotating the secret', () => rotate(app)) }),
      el('button', { type: 'button', class: 'delete danger', text: 'Delete', onclick: acting(itemSlot, 'Deleting the app', () => remove(app)) }),
    ),
    resultSlotElement(itemSlot),
  );
}

function render(apps: App[]): void {
  if (!apps.length) {
    list.replaceChildren(el('p', { text: 'No apps yet.' }));
    return;
  }
  list.replaceChildren(...apps.map(card));
}

async function load(): Promise<void> {
  const res = await api.GET('/api/apps');
  if (!res.data) return refused(slot, res, 'Loading your apps');
  render(res.data.apps);
}

async function rotate(app: App): Promise<void> {
  if (!confirm(`Replace the secret of ${app.name}? The old one stops working at once.`)) return;
  const res = await api.POST('/api/apps/{clientId}/secret', { params: { path: { clientId: app.client_id } } });
  if (!res.data) return refused(slot, res, 'Rotating the secret');
  showSecret(app.name, res.data.client_id, res.data.client_secret);
  said(slot, 'New secret made');
}

async function remove(app: App): Promise<void> {
  if (!confirm(`Delete ${app.name}? Its codes and tokens stop working.`)) return;
  const res = await api.DELETE('/api/apps/{clientId}', { params: { path: { clientId: app.client_id } } });
  if (!res.response.ok) return refused(slot, res, 'Deleting the app');
  said(slot, `Deleted ${app.name}`);
  await load();
}


const form = byId(ids.apps.registerForm, HTMLFormElement);
form.addEventListener(
  'submit',
  acting(slot, 'Registering the app', async () => {
    const res = await api.POST('/api/apps', {
      body: {
        name: byId(ids.apps.name, HTMLInputElement).value,
        redirect_uris: lines(byId(ids.apps.redirectUris, HTMLTextAreaElement)),
        post_logout_redirect_uris: lines(byId(ids.apps.postLogoutRedirectUris, HTMLTextAreaElement)),
        ...(byId(ids.apps.public, HTMLInputElement).checked ? { public: true } : {}),
        grant_types: grantTypes(byId(ids.apps.refreshTokens, HTMLInputElement).checked, byId(ids.apps.deviceGrant, HTMLInputElement).checked),
      },
    });
    if (!res.data) return refused(slot, res, 'Registering the app');
    const app = res.data;
    // A public app has no secret: nothing to show but a note.
    if (app.client_secret === undefined) byId(ids.apps.newSecret).hidden = true;
    else showSecret(app.name, app.client_id, app.client_secret);
    said(slot, app.public ? `Registered ${app.name} (public client: no secret; use PKCE)` : `Registered ${app.name}`);
    form.reset();
    await load();
  }),
);
copying(byId(ids.apps.copyClientSecret, HTMLButtonElement), slot, 'the client secret', () => byId(ids.apps.newClientSecret));
loading(slot, 'Loading your apps', load);
