/**
 * What a suite needs from the machine beyond `npm ci`: Chromium, PostgreSQL's binaries, the right to
 * mount a tmpfs. .ci/run provides each of them, so under CI=true a missing one fails the run; on a
 * developer's machine the suite is skipped with a notice on stderr.
 */
export function precondition(suite: string, met: boolean, missing: string): boolean {
  if (met) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true but ${suite} cannot run: ${missing}`);
  process.stderr.write(`\n*** ${suite} SKIPPED: ${missing} ***\n\n`);
  return false;
}
