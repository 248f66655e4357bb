import { SDK_CACHE_CONTROL } from '../games/sdk.js';
import { sendEtagFile } from '../http/etag-file.js';
import type { Handler } from '../http/handler.js';
import { browserFile } from '../pages/browser-code.js';

export const getGameSdkTypes: Handler<'getGameSdkTypes'> = async (_input, ctx) => sendEtagFile(ctx, await browserFile('sdk/game.d.ts'), SDK_CACHE_CONTROL);
