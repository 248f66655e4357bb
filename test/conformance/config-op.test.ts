/**
 * The OpenID Foundation's Config OP plan (`oidcc-config-certification-test-plan`): one module,
 * oidcc-discovery-endpoint-verification. Its https conditions are a deployment's: it runs against
 * the service as deployed behind a TLS-terminating proxy (PUBLIC_URL https; the harness is the
 * proxy, sending the requests for that address to the server's port), where every condition
 * holds; and against a development PUBLIC_URL over http, where exactly the https conditions fail
 * (docs/operations.md#https-and-the-openid-conformance-plans).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { HTTPS_CONDITIONS, verifyDiscovery } from './discovery.js';
import { reportTable, runModule, type Verdict } from './harness.js';
import { startOp, type Op } from './relying-party.js';

const verdicts: Verdict[] = [];
const ops: Op[] = [];
afterAll(async () => {
  process.stdout.write(`\noidcc-config-certification-test-plan\n${reportTable(verdicts)}\n`);
  await Promise.all(ops.map((op) => op.close()));
});

describe('oidcc-config-certification-test-plan', () => {
  it('oidcc-discovery-endpoint-verification', async () => {
    const op = await startOp('https://idp.conformance.test');
    ops.push(op);
    const verdict = await runModule('oidcc-discovery-endpoint-verification', (m) => verifyDiscovery(m, op));
    verdicts.push(verdict);
    expect(verdict.failures).toEqual([]);
    expect(verdict.result).not.toBe('FAILED');
  });

  it('oidcc-discovery-endpoint-verification on an http PUBLIC_URL: only the https conditions fail', async () => {
    const op = await startOp();
    ops.push(op);
    const verdict = await runModule('oidcc-discovery-endpoint-verification (http)', (m) => verifyDiscovery(m, op));
    const failed = verdict.failures.map((f) => f.split(':')[0]);
    expect(failed).toEqual(HTTPS_CONDITIONS.filter((c) => c !== 'CheckDiscEndSessionEndpoint'));
  });
});
