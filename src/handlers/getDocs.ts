import { DOCS_CSP } from '../docs/published.js';
import type { Handler } from '../http/handler.js';

export const getDocs: Handler<'getDocs'> = async (_input, ctx, deps) => {
  ctx.set('Content-Security-Policy', DOCS_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = deps.publication.page;
};
