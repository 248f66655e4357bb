/**
 * What a handler is (src/handlers/<operationId>.ts, one per operation of openapi.yaml): its typed
 * input, the dependencies createApp injects (AppDeps), and what the security handlers leave on
 * ctx.state for it.
 */
import type { ScryptParams } from '../accounts/passwords.js';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Context as OpContext } from 'openapi-backend';
import type { operations } from '../../generated/api.js';
import type { Audit } from '../audit.js';
import type { Config } from '../config.js';
import type { Publication } from '../docs/published.js';
import type { Mailer } from '../mail/mailer.js';
import type { DefaultPictures } from '../pictures/defaults.js';
import type { PictureStore } from '../pictures/pictures.js';
import type { Metrics } from '../metrics/metrics.js';
import type { KeyRing } from '../oauth/keys.js';
import type { Limits } from '../security/rate-limit.js';
import type { TokenWithUser } from '../domain/apps.js';
import type { UserRecord } from '../domain/users.js';
import type { Store } from '../store/types.js';

declare module 'koa' {
  /** What the security handlers leave on ctx.state for the handler after them. */
  interface DefaultState {
    /** The bearerAuth scheme's token and its user. */
    bearer?: TokenWithUser;
    /** The session scheme's user. */
    user?: UserRecord;
    /** The session as this request read it from the store (src/sessions/session.ts): its key and whose it was. */
    loadedSession?: { key: string; userId: number | null };
    /** The session user's lookup, shared by the security handler and the page (currentUser). */
    currentUser?: { id: number; record: Promise<UserRecord | undefined> };
    /**
     * The client id of the app a successful `x-cors: client` response is about, set by its
     * handler once the client is authenticated (src/http/client-cors.ts; a bearer token's app
     * is taken from `bearer` without this).
     */
    corsApp?: string;
  }
}

/** Everything a handler may use, injected by createApp. */
export interface AppDeps {
  config: Config;
  store: Store;
  logger: Logger;
  /** The clock, in ms since epoch; tests inject their own. */
  now: () => number;
  pictures: PictureStore;
  defaults: DefaultPictures;
  /** The published contract and the docs page, prepared at start. */
  publication: Publication;
  limits: Limits;
  /** Security events for the audit trail (src/audit.ts). */
  audit: Audit;
  /** Outgoing mail: SMTP, or the outbox folder without SMTP_URL (src/mail/mailer.ts). */
  mailer: Mailer;
  /** Prometheus metrics; undefined when METRICS_PORT is unset. */
  metrics: Metrics | undefined;
  /** The ID token signing keys (src/oauth/keys.ts). */
  keys: KeyRing;
  /** Set on SIGTERM (src/server.ts): /healthz then answers 503, so a load balancer stops sending requests. */
  readiness: { shuttingDown: boolean };
  /** The cost new password hashes are made at (AppOptions.passwordHashing). */
  passwordHashing: ScryptParams;
  /** The cost new recovery codes are hashed at (AppOptions.recoveryCodeHashing). */
  recoveryCodeHashing: ScryptParams;
}

type Parameters<Op extends keyof operations> = operations[Op]['parameters'];
/** `never` (the generator's "no such parameters") becomes an empty object. */
type Present<T> = [T] extends [never] ? Record<string, never> : [T] extends [undefined] ? Record<string, never> : NonNullable<T>;
type Content<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: infer C } } ? C : never;

/**
 * The request body a handler receives: the JSON or URL-encoded form the contract declares, as
 * validated. A `text/plain` body is parsed as a form by src/http/body.ts before validation, so it
 * arrives as the form; a multipart body is not parsed at all (the handler streams it).
 */
type RequestBody<Op extends keyof operations> =
  | (Content<Op> extends { 'application/json': infer J } ? J : never)
  | (Content<Op> extends { 'application/x-www-form-urlencoded': infer F } ? F : never)
  | (Content<Op> extends { 'multipart/form-data': unknown } ? undefined : never);

/**
 * What a handler gets of its request, typed from the generated contract and already validated
 * (and coerced) against it by src/http/dispatch.ts. Headers are those the contract declares, under
 * their lower-case names.
 */
export interface HandlerInput<Op extends keyof operations> {
  path: Present<Parameters<Op>['path']>;
  query: Present<Parameters<Op>['query']>;
  headers: Present<Parameters<Op>['header']>;
  body: [RequestBody<Op>] extends [never] ? undefined : RequestBody<Op>;
}

export type Handler<Op extends keyof operations> = (input: HandlerInput<Op>, ctx: Koa.Context, deps: AppDeps) => Promise<void>;

/**
 * The request's parts, as src/http/dispatch.ts (or openapi-backend) left them on its context once
 * validated against the operation's contract entry. They become the handler's HandlerInput where
 * src/http/operations.ts binds each handler to its operationId: that binding is what types them.
 */
export function handlerInput(c: OpContext): Record<'path' | 'query' | 'headers' | 'body', unknown> {
  return { path: c.request.params, query: c.request.query, headers: c.request.headers, body: c.request.requestBody };
}
/**
 * Resolves to a truthy value when the request is authorized; throws otherwise. Security handlers
 * see the raw request (openapi-backend's context): they run before validation.
 */
export type SecurityHandler = (c: OpContext, ctx: Koa.Context, deps: AppDeps) => Promise<unknown>;

/** The JSON body the contract declares for an operation and status. */
export type JsonBody<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer Body } } ? Body : never;
