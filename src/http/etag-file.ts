/** A file served with its ETag: a request that already has this version gets 304 and no body. */
import type Koa from 'koa';

interface EtagFile {
  type: string;
  body: string;
  /** A strong validator of `body` (quoted). */
  etag: string;
}

export function sendEtagFile(ctx: Koa.Context, file: EtagFile, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.etag = file.etag;
  // Koa's ctx.fresh compares validators on a 2xx status only; the default status is 404.
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.type;
  ctx.body = file.body;
}
