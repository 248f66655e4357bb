import type { Handler } from './types.js';

export const getContractJson: Handler<'getContractJson'> = async (_input, ctx, deps) => {
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'application/json; charset=utf-8';
  // Serialized once at start; a string body also skips the per-request response validation.
  ctx.body = deps.publication.contract.json;
};
