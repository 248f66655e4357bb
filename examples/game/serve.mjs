#!/usr/bin/env node
// The example game and client backend, for trying both flows by hand (see docs/walkthrough.md).
//
//   GET  /           the example game page (framed by the service's /play/<gameId>)
//   GET  /callback   the traditional flow's redirect_uri: exchanges ?code= and shows who signed in
//   POST /exchange   {code} from the game page: exchanges it and returns the whois identity
//
// Environment: PORT (8080), SERVICE_URL (http://localhost:3000), CLIENT_ID (demo_client),
// CLIENT_SECRET (demo-secret): the demo data's app, whose redirect URI is
// http://localhost:8080/callback. The secret stays here, on the server side, as it must.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const port = Number(process.env.PORT || 8080);
const service = (process.env.SERVICE_URL || 'http://localhost:3000').replace(/\/+$/, '');
const clientId = process.env.CLIENT_ID || 'demo_client';
const clientSecret = process.env.CLIENT_SECRET || 'demo-secret';
const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = fs
  .readFileSync(path.join(import.meta.dirname, 'index.html'), 'utf8')
  .replace('<html lang="en">', `<html lang="en" data-service="${escape(service)}">`);

async function whoIs(code, redirectUri) {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, client_secret: clientSecret });
  if (redirectUri) form.set('redirect_uri', redirectUri);
  const token = await fetch(`${service}/api/oauth/token`, { method: 'POST', body: form });
  const tokenBody = await token.json();
  if (!token.ok) return { error: tokenBody.message };
  const whois = await fetch(`${service}/api/oauth/whois`, { headers: { Authorization: `Bearer ${tokenBody.access_token}` } });
  return whois.json();
}

http
  .createServer(async (req, res) => {
    const url = new URL(req.url, `http://localhost:${port}`);
    try {
      if (req.method === 'GET' && url.pathname === '/') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(page);
      } else if (req.method === 'GET' && url.pathname === '/callback') {
        const params = Object.fromEntries(url.searchParams);
        const result = params.code ? await whoIs(params.code, `http://localhost:${port}/callback`) : params;
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(`<!doctype html><title>Callback</title><h1>Back from the identity service</h1><pre>${escape(JSON.stringify(result, null, 2))}</pre>`);
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
      res.statusCode = 500;
      res.end(String(err));
    }
  })
  .listen(port, () => {
    process.stdout.write(`Example game and client on http://localhost:${port}/ (service ${service}, client_id ${clientId})\n`);
  });
