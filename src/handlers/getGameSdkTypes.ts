import { GAME_SDK, SDK_CACHE_CONTROL } from '../games/sdk.js';
import { sendEtagFile } from '../http/etag-file.js';
import type { Handler } from '../http/handler.js';

export const getGameSdkTypes: Handler<'getGameSdkTypes'> = async (_input, ctx) => sendEtagFile(ctx, GAME_SDK.types, SDK_CACHE_CONTROL);
