/**
 * The harness keeps the suite's verdict semantics (test/conformance/harness.ts): a check that
 * fails at FAILURE fails the module, WARNING only warns, a stop ends it, a skip or a screenshot
 * placeholder gives their own results, an exception fails it. And the relying party's checks do
 * fail on the answers the conformance suite rejects.
 */
import { describe, expect, it } from 'vitest';
import { reportTable, runModule, shannonBits } from './harness.js';
import { checkErrorRedirect, standardClaimsProblem, type Server } from './relying-party.js';

const server: Server = { metadata: { issuer: 'https://op.example' }, jwks: { keys: [] } };

describe('verdicts', () => {
  it('PASSED, WARNING, FAILED, REVIEW and SKIPPED as the suite gives them', async () => {
    expect((await runModule('a', async (m) => void m.check('c', 'FAILURE', () => undefined))).result).toBe('PASSED');
    expect((await runModule('b', async (m) => void m.check('c', 'WARNING', () => 'no'))).result).toBe('WARNING');
    expect((await runModule('c', async (m) => void m.check('c', 'INFO', () => 'no'))).result).toBe('PASSED');
    const failed = await runModule('d', async (m) => {
      m.check('w', 'WARNING', () => 'no');
      m.check('f', 'FAILURE', () => 'broken');
    });
    expect([failed.result, failed.failures, failed.warnings]).toEqual(['FAILED', ['f: broken'], ['w: no']]);
    expect((await runModule('e', async (m) => m.placeholder('the page'))).result).toBe('REVIEW');
    expect((await runModule('f', async (m) => m.skip('not supported'))).result).toBe('SKIPPED');
  });

  it('a stop ends the module; an exception in a condition or in the module fails it', async () => {
    let after = false;
    const stopped = await runModule('g', async (m) => {
      m.require('r', () => 'missing');
      after = true;
    });
    expect([stopped.result, after]).toEqual(['FAILED', false]);
    const thrown = await runModule('h', async (m) => void m.check('x', 'WARNING', () => JSON.parse('{') as string));
    expect(thrown.result).toBe('FAILED');
    const unexpected = await runModule('i', async () => {
      throw new Error('the OP is down');
    });
    expect([unexpected.result, unexpected.failures[0]]).toEqual(['FAILED', expect.stringContaining('the OP is down')]);
  });

  it('reports each module as a table row', async () => {
    const verdict = await runModule('oidcc-x', async (m) => void m.check('c', 'WARNING', () => 'a|b'));
    expect(reportTable([verdict])).toBe('| module | result | notes |\n|---|---|---|\n| oidcc-x | WARNING | warning: c: a\\|b |');
  });

  it("measures entropy as EnsureMinimumAuthorizationCodeEntropy does", () => {
    expect(shannonBits('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toBe(0);
    expect(shannonBits('abcd')).toBe(8);
  });
});

describe('the checks fail what the suite fails', () => {
  const sent = { state: 's1' };
  it('an error redirect that carries a code, another state or a quote in its description', async () => {
    const landing = { callback: new URL('https://rp.example/cb?code=c&state=s2&error=invalid_request&error_description=a%22b'), signInPages: 0, consentPages: 0 };
    const verdict = await runModule('j', async (m) => checkErrorRedirect(m, server, landing, sent, ['invalid_request'], 'CheckError'));
    expect(verdict.failures.map((f) => f.split(':')[0])).toEqual(['CheckStateInAuthorizationResponse', 'RejectAuthCodeInAuthorizationEndpointResponse', 'ValidateErrorDescriptionFromAuthorizationEndpointResponseError']);
    expect(verdict.warnings.map((f) => f.split(':')[0])).toEqual(['CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint']);
  });

  it('an error page where a redirect was due, and an error the module does not accept', async () => {
    const page = await runModule('k', async (m) => checkErrorRedirect(m, server, { page: '<h1>Error</h1>', status: 400, url: 'x', signInPages: 0, consentPages: 0 }, sent, ['login_required'], 'CheckError'));
    expect(page.result).toBe('FAILED');
    const wrong = await runModule('l', async (m) =>
      checkErrorRedirect(m, server, { callback: new URL('https://rp.example/cb?error=invalid_request&state=s1'), signInPages: 0, consentPages: 0 }, sent, ['login_required'], 'CheckError'),
    );
    expect(wrong.failures).toEqual(['CheckError: error=invalid_request, expected one of login_required']);
  });

  it('standard claims of the wrong type', () => {
    expect(standardClaimsProblem({ sub: '1', email_verified: 'true' })).toBe('email_verified is not a boolean');
    expect(standardClaimsProblem({ name: 'null' })).toBe('name is not a non-blank string');
    expect(standardClaimsProblem({ sub: '1', updated_at: 5, name: 'ada' })).toBeUndefined();
  });
});
