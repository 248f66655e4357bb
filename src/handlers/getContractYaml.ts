import type { Handler } from '../http/handler.js';

export const getContractYaml: Handler<'getContractYaml'> = async (_input, ctx, deps) => {
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'application/yaml; charset=utf-8';
  ctx.body = deps.publication.contract.yaml;
};
