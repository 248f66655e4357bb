/**
 * One timed load run of `npm run bench`, in a process of its own: `node --import tsx
 * scripts/bench/load.ts '<LoadSpec as JSON>'` drives autocannon and prints `{ result, fed }` as
 * JSON on stdout. The bench starts a fresh one for every run, so no run inherits the state that
 * an earlier run left in the load generator (after driving the static-file baseline's large
 * bodies, autocannon in the same process drove small-response servers at a higher server CPU per
 * request for the rest of the run: docs/performance.md#the-reads-slowness-in-full-runs).
 */
import fs from 'node:fs';
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * A different request each time: `{}` in `path` and `body` becomes the next value, a random id
   * in 1..random or the next line of `file` from line `start` on (wrapping at its end).
   */
  feed?: {
    path: string;
    body?: string;
    method?: string;
    headers?: Record<string, string>;
    values: { random: number } | { file: string; start: number };
  };
}

export interface LoadOutput {
  result: autocannon.Result;
  /** How many values of the feed were handed out (the bench's next run of the file starts after them). */
  fed: number;
}

async function run(spec: LoadSpec): Promise<LoadOutput> {
  const opts: autocannon.Options = { url: spec.url, connections: spec.connections, duration: spec.duration };
  // Only what the spec sets: an undefined key would override autocannon's default.
  if (spec.method) opts.method = spec.method as autocannon.Options['method'];
  if (spec.headers) opts.headers = spec.headers;
  if (spec.body !== undefined) opts.body = spec.body;
  let fed = 0;
  const feed = spec.feed;
  if (feed) {
    const source = feed.values;
    const next: () => string =
      'random' in source
        ? () => String(1 + Math.floor(Math.random() * source.random))
        : (() => {
            const lines = fs.readFileSync(source.file, 'utf8').split('\n').filter(Boolean);
            if (lines.length === 0) throw new Error(`${source.file} has no values`);
            return () => lines[(source.start + fed) % lines.length]!;
          })();
    opts.requests = [
      {
        setupRequest: (req) => {
          const value = next();
          fed++;
          return {
            ...req,
            path: feed.path.replace('{}', value),
            method: (feed.method ?? 'GET') as typeof req.method,
            headers: feed.headers ?? req.headers,
            body: feed.body?.replace('{}', value),
          };
        },
      },
    ];
  }
  const result = await autocannon(opts);
  return { result, fed };
}

run(JSON.parse(process.argv[2] ?? '') as LoadSpec).then(
  (out) => process.stdout.write(JSON.stringify(out)),
  (err: unknown) => {
    process.stderr.write(`load run failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
