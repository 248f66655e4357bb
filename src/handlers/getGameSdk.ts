import { SDK_CACHE_CONTROL } from '../games/sdk.js';
import { sendEtagFile } from '../http/etag-file.js';
import type { Handler } from '../http/handler.js';
import { browserFile } from '../pages/browser-code.js';

export const getGameSdk: Handler<'getGameSdk'> = async (_input, ctx) => sendEtagFile(ctx, await browserFile('sdk/game.js'), SDK_CACHE_CONTROL);
