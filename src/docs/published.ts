/**
 * What the service publishes about itself: its contract (with `servers` set to PUBLIC_URL) and a
 * reference page rendered in the browser by Redoc's standalone bundle, served from node_modules
 * so the page works without internet, with the theme, styles and script that make it accessible
 * (reference-a11y.ts). Everything is read and prepared once per process, at the first start (a test
 * process starts many apps; they share it).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import yaml from 'js-yaml';
import { REDOC_THEME, REFERENCE_CSS, REFERENCE_SCRIPT } from './reference-a11y.js';

export interface PublishedContract {
  title: string;
  yaml: string;
  json: string;
}

/** The address the source document's `servers` and examples name: the development default. */
const SOURCE_SERVER = 'http://localhost:3000';

/**
 * `value` with every string that starts with SOURCE_SERVER starting with `publicUrl` instead: the
 * examples' addresses (the metadata's endpoints, a device's verification_uri, a profile's picture)
 * are this server's, whatever port or host it runs on. Prose never starts with an address.
 */
function atServer(value: unknown, publicUrl: string): unknown {
  if (typeof value === 'string') return value.startsWith(SOURCE_SERVER) ? publicUrl + value.slice(SOURCE_SERVER.length) : value;
  if (Array.isArray(value)) return value.map((item) => atServer(item, publicUrl));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, atServer(item, publicUrl)]));
  return value;
}

/** The contract as clients should see it: openapi.yaml with `servers` and the examples' addresses at PUBLIC_URL. */
function publishContract(contractPath: string, publicUrl: string): PublishedContract {
  const document = atServer(yaml.load(fs.readFileSync(contractPath, 'utf8')), publicUrl) as Record<string, unknown>;
  const published = { ...document, servers: [{ url: publicUrl, description: 'This server' }] };
  const info = document.info as { title?: string } | undefined;
  return {
    title: info?.title ?? 'API',
    yaml: yaml.dump(published, { lineWidth: -1, noRefs: true, quotingType: "'" }),
    json: `${JSON.stringify(published, null, 2)}\n`,
  };
}

export interface DocsAsset {
  body: Buffer;
  type: string;
}

const require = createRequire(import.meta.url);
const REDOC_BUNDLES = path.join(path.dirname(require.resolve('redoc/package.json')), 'bundles');

/**
 * Redoc's sidebar shows a logo it loads from Redocly's CDN. The page must not reach out to any
 * other host, so the bundle is served with that one address replaced by an empty image (the
 * component hides itself when the image fails). The CSP below would block it anyway.
 */
const REDOC_CDN_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';

/** The files GET /docs/assets/{file} serves (the contract's enum lists the same names). */
function loadDocsAssets(): Map<string, DocsAsset> {
  const redoc = fs.readFileSync(path.join(REDOC_BUNDLES, 'redoc.standalone.js'), 'utf8').replace(REDOC_CDN_LOGO, '"data:,"');
  return new Map([
    ['redoc.standalone.js', { body: Buffer.from(redoc), type: 'application/javascript; charset=utf-8' }],
    ['reference-a11y.js', { body: Buffer.from(REFERENCE_SCRIPT), type: 'application/javascript; charset=utf-8' }],
    [
      'redoc.standalone.js.LICENSE.txt',
      { body: fs.readFileSync(path.join(REDOC_BUNDLES, 'redoc.standalone.js.LICENSE.txt')), type: 'text/plain; charset=utf-8' },
    ],
  ]);
}

/**
 * Only this origin (and data: images). Styles are inline (styled-components); the search index
 * runs in a worker made from a blob.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Everything GET /openapi.*, /docs and /docs/assets/* answer with, prepared once. */
export interface Publication {
  contract: PublishedContract;
  page: string;
  assets: Map<string, DocsAsset>;
}

const publications = new Map<string, Publication>();

export function createPublication(contractPath: string, publicUrl: string): Publication {
  const key = `${contractPath}\n${publicUrl}`;
  let publication = publications.get(key);
  if (!publication) {
    const contract = publishContract(contractPath, publicUrl);
    publication = { contract, page: docsPage(contract.title), assets: loadDocsAssets() };
    publications.set(key, publication);
  }
  return publication;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Relative URLs, so the page also works behind a proxy that mounts the service under a path. */
function docsPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} API reference</title>
<link rel="icon" href="assets/favicon.svg" type="image/svg+xml">
<style>${REFERENCE_CSS}</style>
</head>
<body>
<redoc spec-url="openapi.json" expand-responses="200" path-in-middle-panel="true" theme="${escapeHtml(JSON.stringify(REDOC_THEME))}"></redoc>
<script src="docs/assets/redoc.standalone.js"></script>
<script src="docs/assets/reference-a11y.js"></script>
</body>
</html>
`;
}
