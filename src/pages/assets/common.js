// Shared by the pages' scripts: JSON calls with the session's CSRF token, and DOM building
// without innerHTML (every text goes in as text).
'use strict';
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');

  async function api(method, path, body) {
    const headers = { 'X-CSRF-Token': csrf, Accept: 'application/json' };
    let payload;
    if (body instanceof FormData) {
      payload = body;
    } else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
    let data = null;
    if (res.status !== 204) data = await res.json().catch(() => null);
    return { ok: res.ok, status: res.status, data };
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'text') node.textContent = String(value);
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  function status(text, isError) {
    const node = document.getElementById('status');
    if (!node) return;
    node.textContent = text;
    node.className = isError ? 'error' : 'ok';
  }

  function failed(res, what) {
    status(`${what} failed: ${(res.data && res.data.message) || `HTTP ${res.status}`}`, true);
  }

  // Confirms the signed-in person again with one of their passkeys (POST /api/account/reauth/passkey,
  // through the vendored SimpleWebAuthnBrowser): undefined when done, else what went wrong.
  async function confirmWithPasskey() {
    const failure = (reason) => `Confirming with a passkey failed: ${reason}`;
    const reasonOf = (res) => (res.data && res.data.message) || `HTTP ${res.status}`;
    const options = await api('POST', '/api/account/reauth/passkey/options');
    if (!options.ok) return failure(reasonOf(options));
    let credential;
    try {
      credential = await window.SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options.data });
    } catch (err) {
      return failure(err.message);
    }
    const res = await api('POST', '/api/account/reauth/passkey', { credential });
    return res.ok ? undefined : failure(reasonOf(res));
  }

  window.idp = { csrf, api, el, status, failed, confirmWithPasskey };
})();
