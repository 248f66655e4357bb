// The play page's side of the game flow (docs/decisions.md#game-flow). It listens only to its game's iframe
// window at the game's origin, answers only to that origin (never '*'), allows one authorize per
// page load, asks the player in a dialog, and gets the code from the server (session + CSRF),
// which checks the same rules again. While signed in it also sends a heartbeat every minute.
'use strict';
(function () {
  const { api } = window.idp;
  const frame = document.getElementById('game');
  const origin = frame.dataset.origin;
  const gameId = Number(frame.dataset.gameId);
  const loggedIn = frame.dataset.loggedIn === 'true';
  // The scopes a game may ask for, in this order (the server's list); the server checks the rule again.
  const grantable = frame.dataset.scopes.split(' ');
  // Some of them, each once, in order, with userinfo or openid; profile only with openid.
  function validScopes(scopes) {
    if (!Array.isArray(scopes) || scopes.length === 0) return false;
    const positions = scopes.map((s) => grantable.indexOf(s));
    if (positions.some((p, i) => p < 0 || (i > 0 && p <= positions[i - 1]))) return false;
    if (!scopes.includes('userinfo') && !scopes.includes('openid')) return false;
    return !scopes.includes('profile') || scopes.includes('openid');
  }
  const dialog = document.getElementById('consent');
  let requested = false;

  // The modal dialog makes the page behind it inert; Tab on its last control (Shift+Tab on its
  // first) comes round to the first (the last) instead of leaving for the browser's own controls.
  dialog.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab') return;
    const controls = [...dialog.querySelectorAll('button, a[href], input, select, textarea')].filter((c) => !c.disabled && c.offsetParent !== null);
    const [first, last] = [controls[0], controls[controls.length - 1]];
    if (!first) return;
    if (event.shiftKey ? document.activeElement === first : document.activeElement === last) {
      event.preventDefault();
      (event.shiftKey ? last : first).focus();
    }
  });

  function reply(message, request) {
    if (request && Object.prototype.hasOwnProperty.call(request, 'echo')) message.echo = request.echo;
    frame.contentWindow.postMessage(message, origin);
  }

  const refusal = (message) => ({ type: 'authorized', error: true, message });

  const STATUS_MESSAGES = { 400: 'invalid_scopes', 401: 'no_account', 403: 'invalid_app', 404: 'invalid_app' };

  // The optional PKCE and OpenID parameters of the authorize message, passed on to the server as
  // they are; undefined when malformed (the server checks them again, and requires a challenge
  // from a public app).
  const PKCE_FIELDS = ['code_challenge', 'code_challenge_method', 'nonce'];
  function pkceParameters(request) {
    const out = {};
    for (const name of PKCE_FIELDS) {
      if (request[name] === undefined) continue;
      if (typeof request[name] !== 'string' || request[name] === '') return undefined;
      if (request[name].length > (name === 'nonce' ? 512 : 128)) return undefined;
      out[name] = request[name];
    }
    if (out.code_challenge_method !== undefined && out.code_challenge_method !== 'S256') return undefined;
    if (out.code_challenge_method !== undefined && out.code_challenge === undefined) return undefined;
    return out;
  }

  // A 400 about PKCE (a public app without a challenge, a malformed one) is the request's fault,
  // not the scopes'.
  const isPkceRefusal = (res) => res.status === 400 && typeof res.data?.message === 'string' && /code_challenge|PKCE/.test(res.data.message);

  function ask(app, scopes) {
    document.getElementById('consent-app').textContent = app.name;
    document.getElementById('consent-owner').textContent = app.owner.name;
    // The dialog lists every grantable scope; it shows those asked for.
    for (const item of dialog.querySelectorAll('li[data-scope]')) item.hidden = !scopes.includes(item.dataset.scope);
    // Where the focus was (the game's frame, its button inside): it goes back there when the dialog closes.
    const opener = document.activeElement;
    return new Promise((resolve) => {
      dialog.addEventListener(
        'close',
        () => {
          if (opener && opener !== document.body && opener.isConnected) opener.focus();
          resolve(dialog.returnValue === 'authorize');
        },
        { once: true },
      );
      dialog.returnValue = '';
      dialog.showModal();
    });
  }

  async function authorize(request) {
    if (!loggedIn) return refusal('no_account');
    const scopes = request.scopes;
    if (!validScopes(scopes)) return refusal('invalid_scopes');
    if (typeof request.client_id !== 'string' || request.client_id === '') return refusal('invalid_app');
    const pkce = pkceParameters(request);
    if (!pkce) return refusal('invalid_request');
    const path = `/api/games/${gameId}/apps/${encodeURIComponent(request.client_id)}?scope=${encodeURIComponent(scopes.join(' '))}`;
    const app = await api('GET', path);
    if (!app.ok) return refusal(STATUS_MESSAGES[app.status] || 'server_error');
    // A remembered grant needs no dialog (the server records and checks grants; docs/account.md).
    if (!app.data.granted && !(await ask(app.data, scopes))) return refusal('access_denied');
    const res = await api('POST', `/api/games/${gameId}/codes`, { client_id: request.client_id, scopes, ...pkce });
    if (isPkceRefusal(res)) return refusal('invalid_request');
    if (!res.ok) return refusal(STATUS_MESSAGES[res.status] || 'server_error');
    return { type: 'authorized', error: false, code: res.data.code };
  }

  window.addEventListener('message', (event) => {
    if (event.source !== frame.contentWindow || event.origin !== origin) return;
    const request = event.data;
    if (typeof request !== 'object' || request === null) return;
    if (request.action === 'info') {
      reply({ type: 'info', logged_in: loggedIn, game_id: gameId }, request);
    } else if (request.action === 'authorize') {
      if (requested) return reply(refusal('already_requested'), request);
      requested = true;
      authorize(request).then(
        (answer) => reply(answer, request),
        () => reply(refusal('server_error'), request),
      );
    }
  });

  if (loggedIn) {
    const beat = () => api('POST', '/api/account/heartbeat').catch(() => {});
    beat();
    setInterval(beat, 60_000);
  }
})();
