import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Context as OpContext } from 'openapi-backend';
import type { operations } from '../../generated/api.js';
import type { Config } from '../config.js';
import type { Publication } from '../docs/published.js';
import type { DefaultPictures } from '../pictures/defaults.js';
import type { PictureFiles } from '../pictures/pictures.js';
import type { Limits } from '../security/rate-limit.js';
import type { Store } from '../store/types.js';

/** Everything a handler may use, injected by createApp. */
export interface AppDeps {
  config: Config;
  store: Store;
  logger: Logger;
  /** The clock, in ms since epoch; tests inject their own. */
  now: () => number;
  files: PictureFiles;
  defaults: DefaultPictures;
  /** The published contract and the docs page, prepared at start. */
  publication: Publication;
  limits: Limits;
}

export type Handler = (c: OpContext, ctx: Koa.Context, deps: AppDeps) => Promise<void>;
/** Resolves to a truthy value when the request is authorized; throws an ApiError otherwise. */
export type SecurityHandler = (c: OpContext, ctx: Koa.Context, deps: AppDeps) => Promise<unknown>;

/** The JSON body the contract declares for an operation and status. */
export type JsonBody<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer Body } } ? Body : never;
