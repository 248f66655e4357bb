#!/usr/bin/env node
// The example game and client backend, for trying both flows by hand (see docs/walkthrough.md).
//
//   GET  /           the example game page (framed by the service's /play/<gameId>)
//   GET  /callback   the traditional flow's redirect_uri: exchanges ?code= and shows who signed in,
//                    or says the person declined (?error=access_denied) or why the service refused
//   POST /exchange   {code} from the game page: exchanges it and returns the whois identity
//
// Environment: PORT (8080), HOST (127.0.0.1: this machine only, as the service; 0.0.0.0 for
// every interface), SERVICE_URL (http://localhost:3000), CLIENT_ID (demo_client), CLIENT_SECRET
// (demo-secret): the demo data's app, whose redirect URI is http://localhost:8080/callback. The
// secret stays here, on the server side, as it must. The service prints this command with its own
// SERVICE_URL at start-up (with demo data).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const port = Number(process.env.PORT || 8080);
const host = process.env.HOST || '127.0.0.1';
const service = (process.env.SERVICE_URL || 'http://localhost:3000').replace(/\/+$/, '');
const clientId = process.env.CLIENT_ID || 'demo_client';
const clientSecret = process.env.CLIENT_SECRET || 'demo-secret';
const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = fs
  .readFileSync(path.join(import.meta.dirname, 'index.html'), 'utf8')
  .replace('<html lang="en">', `<html lang="en" data-service="${escape(service)}">`);

/** The service did not answer (not running, or SERVICE_URL names another address): said plainly. */
class Unreachable extends Error {}

/** fetch() to the service; a network failure becomes Unreachable, naming the address tried. */
async function callService(path, init) {
  const url = `${service}${path}`;
  let res;
  try {
    res = await fetch(url, init);
  } catch (err) {
    const reason = err?.cause?.code || err?.cause?.message || err?.message || String(err);
    throw new Unreachable(
      `Cannot reach the identity service at ${url} (${reason}). Is it running there? ` +
        `If it runs elsewhere, restart this example with its address: SERVICE_URL=<the service's address> node examples/game/serve.mjs ` +
        `(the service prints the exact command when it starts).`,
    );
  }
  if (!(res.headers.get('content-type') || '').includes('application/json')) {
    throw new Unreachable(`${url} answered ${res.status} without JSON: is SERVICE_URL (${service}) the identity service?`);
  }
  return res;
}

async function whoIs(code, redirectUri) {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, client_secret: clientSecret });
  if (redirectUri) form.set('redirect_uri', redirectUri);
  const token = await callService('/api/oauth/token', { method: 'POST', body: form });
  const tokenBody = await token.json();
  if (!token.ok) return { error: tokenBody.message };
  const whois = await callService('/api/oauth/whois', { headers: { Authorization: `Bearer ${tokenBody.access_token}` } });
  return whois.json();
}

const callbackPage = (heading, body) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(heading)}</title><h1>${escape(heading)}</h1>${body}</html>`;

/** The ways on from a callback that brought no code: this example's start, and the service. */
const waysBack = () => `<p><a id="back" href="/">Back to the example app</a> or <a href="${escape(service)}/">to the identity service</a></p>`;

/**
 * The callback of an authorization the service refused or the person declined (`?error=`, RFC 6749
 * 4.1.2.1): said as the person reads it, with a way back. access_denied is the person's Cancel.
 */
function refusalPage(params) {
  if (params.error === 'access_denied') {
    return callbackPage(
      'You declined',
      '<p id="declined">You chose not to let this app use your account: it was given nothing, and nothing was shared with it. You can sign in again whenever you like.</p>' +
        waysBack(),
    );
  }
  const why = params.error_description ? `${params.error_description} (${params.error})` : params.error;
  return callbackPage('Signing in did not work', `<p id="error">The identity service answered: ${escape(why)}</p>${waysBack()}`);
}

http
  .createServer(async (req, res) => {
    const url = new URL(req.url, `http://localhost:${port}`);
    try {
      if (req.method === 'GET' && url.pathname === '/') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(page);
      } else if (req.method === 'GET' && url.pathname === '/callback' && url.searchParams.has('error')) {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(refusalPage(Object.fromEntries(url.searchParams)));
      } else if (req.method === 'GET' && url.pathname === '/callback') {
        const params = Object.fromEntries(url.searchParams);
        const result = params.code ? await whoIs(params.code, `http://localhost:${port}/callback`) : params;
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(callbackPage('Back from the identity service', `<pre>${escape(JSON.stringify(result, null, 2))}</pre>`));
      } else if (req.method === 'POST' && url.pathname === '/exchange') {
        let body = '';
        for await (const chunk of req) body += chunk;
        const { code } = JSON.parse(body || '{}');
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(await whoIs(String(code))));
      } else {
        res.statusCode = 404;
        res.end('not found');
      }
    } catch (err) {
      if (!(err instanceof Unreachable)) {
        res.statusCode = 500;
        res.end(String(err));
        return;
      }
      // 502: this backend works, the service behind it does not answer.
      res.statusCode = 502;
      if (url.pathname === '/callback') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(callbackPage('The identity service cannot be reached', `<p id="error">${escape(err.message)}</p>`));
      } else {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ error: err.message }));
      }
    }
  })
  .listen(port, host, () => {
    process.stdout.write(`Example game and client on http://localhost:${port}/ (service ${service}, client_id ${clientId}; listening on ${host})\n`);
  });
