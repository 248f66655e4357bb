/**
 * openapi-backend stays the router; this only makes its matching cheap. Its own matchOperation
 * rebuilds the flattened operation list and compiles a RegExp per path template on every request
 * (docs/decisions.md#fast-dispatcher, its cost in docs/performance.md#fast-dispatcher). The contract does not change at run time, so both are done once
 * here, with the same precedence: exact path first, then templates by specificity; a path that
 * matches with another method is a 405, no match a 404. The API root is `/` (the default).
 */
import type { OpenAPIRouter, Operation } from 'openapi-backend';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/pfp/{size}/{file}` -> /^\/pfp\/([^/]+)\/([^/]+)$/: one capture group per path parameter, in order. */
export function templatePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{[^}]+\}/g, '\0').split('\0').map(escapeRegExp).join('([^/]+)')}$`);
}

export function precompileRouting(router: OpenAPIRouter): void {
  const operations = router.getOperations();
  const exact = new Map<string, Operation>();
  for (const op of operations) exact.set(`${op.method} ${op.path}`, op);
  const templates = operations
    .map((op) => ({ op, pattern: templatePattern(op.path), specificity: op.path.replace(/\{.*?\}/g, '').length }))
    .sort((a, b) => b.specificity - a.specificity);

  router.getOperations = () => operations;
  router.matchOperation = ((req: { method: string; path: string }, strict?: boolean) => {
    const { method, path } = router.normalizeRequest(req as Parameters<OpenAPIRouter['normalizeRequest']>[0]);
    const fail = (reason: string) => {
      if (strict) throw new Error(reason);
      return undefined;
    };
    const normalized = router.normalizePath(path);
    const hit = exact.get(`${method} ${normalized}`);
    if (hit) return hit;
    let pathMatched = false;
    for (const t of templates) {
      if (!t.pattern.test(normalized)) continue;
      if (t.op.method === method) return t.op;
      pathMatched = true;
    }
    return fail(pathMatched ? '405-methodNotAllowed: this method is not registered for the route' : '404-notFound: no route matches request');
  }) as OpenAPIRouter['matchOperation'];
}
