/**
 * The metrics listener: its own port (METRICS_PORT, bound to METRICS_HOST, 127.0.0.1 by default),
 * so metrics are never served on the public port by accident. GET /metrics answers Prometheus'
 * text format; everything else is 404.
 */
import http, { type Server } from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';

export async function startMetricsListener(metrics: Metrics, port: number, host: string, logger: Logger): Promise<Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        logger.error({ err }, 'collecting metrics failed');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
