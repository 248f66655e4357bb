import type { Handler } from '../http/handler.js';

export const getContractJson: Handler<'getContractJson'> = async (_input, ctx, deps) => {
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'application/json; charset=utf-8';
  // Serialized once at start (src/docs/published.ts). A string body passes the serializers
  // untouched; response validation, where it is on, parses it and checks it like any JSON body.
  ctx.body = deps.publication.contract.json;
};
