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

  // Every date the pages show, in one format in the page's language ("Nov 26, 2026, 2:05 PM" in
  // English), in the reader's time zone.
  const dateFormat = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const formatDate = (ms) => dateFormat.format(new Date(ms));

  // A user agent as a person names the device: "Chrome on Linux", "Safari on iPhone". The common
  // browsers and systems only (order matters: Edge and Opera say Chrome too, Chrome says Safari);
  // anything else is "Unknown browser" (the raw string stays in a title where it is shown).
  const BROWSERS = [
    [/Edg(e|A|iOS)?\//, 'Edge'],
    [/OPR\/|Opera/, 'Opera'],
    [/SamsungBrowser\//, 'Samsung Internet'],
    [/Firefox\/|FxiOS\//, 'Firefox'],
    [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
    [/Version\/[\d.]+.*Safari\//, 'Safari'],
  ];
  const SYSTEMS = [
    [/iPhone/, 'iPhone'],
    [/iPad/, 'iPad'],
    [/Android/, 'Android'],
    [/Windows/, 'Windows'],
    [/CrOS/, 'ChromeOS'],
    [/Macintosh|Mac OS X/, 'macOS'],
    [/Linux/, 'Linux'],
  ];
  function deviceName(userAgent) {
    const find = (list) => (list.find(([pattern]) => pattern.test(userAgent || '')) || [])[1];
    const browser = find(BROWSERS);
    const system = find(SYSTEMS);
    if (browser && system) return `${browser} on ${system}`;
    if (browser) return browser;
    return system ? `A browser on ${system}` : 'Unknown browser';
  }

  // A form's or control's own result line (src/pages/result-slot.ts), right after it. Each new
  // result replaces the last one and ends the error marks it set on fields.
  function clearResult(box) {
    const error = box.querySelector('[role=alert]');
    for (const field of document.querySelectorAll(`[aria-describedby~="${error.id}"]`)) {
      const rest = field.getAttribute('aria-describedby').split(' ').filter((id) => id !== error.id);
      if (rest.length) field.setAttribute('aria-describedby', rest.join(' '));
      else field.removeAttribute('aria-describedby');
      field.removeAttribute('aria-invalid');
    }
    error.textContent = '';
    box.querySelector('[role=status]').textContent = '';
  }

  // A result: said in the slot's status region, scrolled into view (focus stays where it is).
  function said(slotId, text) {
    const box = document.getElementById(slotId);
    clearResult(box);
    box.querySelector('[role=status]').textContent = text;
    box.scrollIntoView({ block: 'nearest' });
  }

  // An error: `res` an API answer (its message) or a text; `field`, when one is wrong, is marked
  // invalid, described by the message and focused, and the message scrolled into view beside it.
  function refused(slotId, res, what, field) {
    const box = document.getElementById(slotId);
    clearResult(box);
    const reason = typeof res === 'string' ? res : (res.data && res.data.message) || `HTTP ${res.status}`;
    const error = box.querySelector('[role=alert]');
    error.textContent = what ? `${what} failed: ${reason}` : reason;
    if (field) {
      field.setAttribute('aria-invalid', 'true');
      const described = field.getAttribute('aria-describedby');
      field.setAttribute('aria-describedby', described ? `${described} ${error.id}` : error.id);
      field.focus({ preventScroll: true });
      field.scrollIntoView({ block: 'nearest' });
    }
    box.scrollIntoView({ block: 'nearest' });
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

  window.idp = { csrf, api, el, status, failed, said, refused, formatDate, deviceName, confirmWithPasskey };
})();
