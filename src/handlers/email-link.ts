/** The link pages' one answer to a link that cannot be used: why, and the way forward. */
import type Koa from 'koa';
import { InvalidInput } from '../domain/errors.js';
import { emailLinkProblemPage } from '../pages/email-pages.js';
import type { AppDeps } from './types.js';
import { pageContext, sendHtml } from './web.js';

/**
 * Runs `open` (what a link's page does with it); when the link cannot be used (InvalidInput),
 * answers 400 with the page that says why and offers a new link, and resolves undefined.
 */
export async function withEmailLink<T>(ctx: Koa.Context, deps: AppDeps, purpose: 'reset' | 'verify', open: () => Promise<T>): Promise<T | undefined> {
  try {
    return await open();
  } catch (err) {
    if (!(err instanceof InvalidInput)) throw err;
    const page = await pageContext(ctx, deps);
    sendHtml(ctx, emailLinkProblemPage({ ...page, message: err.message, purpose }), 400);
    return undefined;
  }
}
