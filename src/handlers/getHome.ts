import { doneNotice, homePage } from '../pages/pages.js';
import type { Handler } from '../http/handler.js';
import { pageContext, sendHtml } from '../http/pages.js';

export const getHome: Handler<'getHome'> = async (input, ctx, deps) => {
  sendHtml(ctx, homePage({ ...(await pageContext(ctx, deps)), notice: doneNotice(input.query.done) }));
};
