/**
 * Prometheus metrics (prom-client), one registry per createMetrics call: the app receives it
 * through its deps (tests make their own), and nothing is registered globally. When METRICS_PORT
 * is unset there is no Metrics object at all, and every call site is a single `?.` branch.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { AuditEvent, AuditFields } from '../audit.js';

/** Seconds; the service's requests mostly take well under a millisecond to a few (pictures). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const CONVERSION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  readonly registry: Registry;
  /** One finished HTTP request: its operationId ('unmatched' when none), status and duration. */
  request(operationId: string, status: number, seconds: number): void;
  /** A token exchange: 'issued', or the refusal's reason (invalid_grant, invalid_client, ...). */
  tokenExchange(outcome: string): void;
  /**
   * An audit event (counted by event; replays and failed sign-ins also have their own series): a
   * listener of the audit trail (src/app.ts subscribes it), so the trail never imports metrics.
   */
  auditEvent(event: AuditEvent, fields: AuditFields): void;
  /** A request refused by a rate limit. */
  rateLimited(limit: string): void;
  /** A failed database call: unavailable (outage) or other. */
  databaseError(kind: 'unavailable' | 'other'): void;
  /** One picture conversion (sharp): its outcome and how long it took. */
  pictureConversion(seconds: number, outcome: 'ok' | 'failed'): void;
}

interface MetricsOptions {
  /** Node process metrics (CPU, memory, event loop lag, GC); default true. */
  processMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'idp_http_requests_total',
    help: 'HTTP requests by operationId and status class',
    labelNames: ['operation', 'status_class'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'idp_http_request_duration_seconds',
    help: 'HTTP request duration by operationId',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const tokenExchanges = new Counter({
    name: 'idp_token_exchanges_total',
    help: 'Token exchanges by outcome: issued, or the reason of the refusal',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const codeReplays = new Counter({ name: 'idp_code_replays_total', help: 'Authorization codes redeemed a second time (their tokens are revoked)', registers: [registry] });
  const signInFailures = new Counter({
    name: 'idp_sign_in_failures_total',
    help: 'Failed sign-ins by reason',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const auditEvents = new Counter({ name: 'idp_audit_events_total', help: 'Audit events by event', labelNames: ['event'] as const, registers: [registry] });
  const rateLimits = new Counter({ name: 'idp_rate_limit_refusals_total', help: 'Requests refused by a rate limit', labelNames: ['limit'] as const, registers: [registry] });
  const databaseErrors = new Counter({
    name: 'idp_database_errors_total',
    help: 'Failed database calls: unavailable (connection lost, timeout, disk full) or other',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const conversions = new Histogram({
    name: 'idp_picture_conversion_duration_seconds',
    help: 'Profile picture conversions (decode and three WebP sizes) by outcome',
    labelNames: ['outcome'] as const,
    buckets: CONVERSION_BUCKETS,
    registers: [registry],
  });

  // The per-request series are looked up once per label set, not hashed from labels each time.
  const requestSeries = new Map<string, { count: Counter.Internal; latency: Histogram.Internal<'operation'> }>();
  return {
    registry,
    request(operationId, status, seconds) {
      const statusClass = `${Math.floor(status / 100)}xx`;
      const key = `${operationId} ${statusClass}`;
      let series = requestSeries.get(key);
      if (!series) {
        series = { count: requests.labels(operationId, statusClass), latency: latency.labels(operationId) };
        requestSeries.set(key, series);
      }
      series.count.inc();
      series.latency.observe(seconds);
    },
    tokenExchange: (outcome) => tokenExchanges.inc({ outcome }),
    auditEvent(event, fields) {
      auditEvents.inc({ event });
      if (event === 'code_replay_detected') codeReplays.inc();
      if (event === 'sign_in_failed') signInFailures.inc({ reason: 'reason' in fields ? fields.reason : 'unknown' });
    },
    rateLimited: (limit) => rateLimits.inc({ limit }),
    databaseError: (kind) => databaseErrors.inc({ kind }),
    pictureConversion: (seconds, outcome) => conversions.observe({ outcome }, seconds),
  };
}
