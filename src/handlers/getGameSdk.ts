import type Koa from 'koa';
import { GAME_SDK, SDK_CACHE_CONTROL, type SdkFile } from '../games/sdk.js';
import type { Handler } from './types.js';

function send(ctx: Koa.Context, file: SdkFile): void {
  ctx.set('Cache-Control', SDK_CACHE_CONTROL);
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

export const getGameSdk: Handler<'getGameSdk'> = async (_input, ctx) => send(ctx, GAME_SDK.module);

export const getGameSdkTypes: Handler<'getGameSdkTypes'> = async (_input, ctx) => send(ctx, GAME_SDK.types);
