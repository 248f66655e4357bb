/**
 * The OpenID Foundation conformance suite's verdict semantics (openid-certification/
 * conformance-suite, testmodule/AbstractTestModule.java, condition/Condition.java), for one test
 * module at a time: each named condition is called with the severity the suite gives it; a
 * FAILURE makes the module FAILED (and, called to stop, ends it there), a WARNING makes it WARNING
 * unless it already failed, INFO is only logged. A module may end SKIPPED (fireTestSkipped), and a
 * module that waits for a screenshot ends REVIEW: here the harness looks at the page itself and
 * records what it saw.
 *
 * A FAILED module fails its test; WARNING, REVIEW and SKIPPED pass it and are reported
 * (docs/oauth.md#openid-conformance).
 */
import { expect, it } from 'vitest';

type Severity = 'FAILURE' | 'WARNING' | 'INFO';
export type Result = 'PASSED' | 'WARNING' | 'REVIEW' | 'SKIPPED' | 'FAILED';

interface Logged {
  condition: string;
  severity: Severity;
  passed: boolean;
  detail?: string;
}

/** Thrown by a condition called to stop: the module ends FAILED. */
class Stopped extends Error {}
/** Thrown by fireTestSkipped. */
class Skipped extends Error {}

/** What a condition answers: nothing (it holds) or a reason (it does not). */
type Condition = () => string | undefined | void;

export class ModuleRun {
  readonly log: Logged[] = [];
  /** What each screenshot placeholder would show, as the harness read it from the page. */
  readonly reviewed: string[] = [];
  private failed = false;
  private warned = false;
  private skipped: string | undefined;

  constructor(readonly name: string) {}

  /** callAndContinueOnFailure(condition, severity): whether it held. */
  check(condition: string, severity: Severity, test: Condition): boolean {
    let detail: string | undefined;
    try {
      detail = test() ?? undefined;
    } catch (err) {
      // An unexpected exception inside a condition aborts the module as FAILED in the suite.
      detail = `exception: ${err instanceof Error ? err.message : String(err)}`;
      this.log.push({ condition, severity: 'FAILURE', passed: false, detail });
      this.failed = true;
      throw new Stopped(`${condition}: ${detail}`);
    }
    const passed = detail === undefined;
    this.log.push({ condition, severity, passed, detail });
    if (!passed && severity === 'FAILURE') this.failed = true;
    if (!passed && severity === 'WARNING') this.warned = true;
    return passed;
  }

  /** callAndStopOnFailure(condition): a FAILURE that ends the module. */
  require(condition: string, test: Condition): void {
    if (!this.check(condition, 'FAILURE', test)) throw new Stopped(`${condition}: ${this.log.at(-1)!.detail}`);
  }

  /** A value the module cannot go on without (a stop condition that extracts it). */
  extract<T>(condition: string, value: T | undefined | null, why: string): T {
    this.require(condition, () => (value === undefined || value === null ? why : undefined));
    return value!;
  }

  /** fireTestSkipped: the module ends SKIPPED (unless it already failed). */
  skip(reason: string): never {
    this.skipped = reason;
    throw new Skipped(reason);
  }

  /** A browser interaction placeholder: the result is REVIEW; `seen` is what the page showed. */
  placeholder(seen: string): void {
    this.reviewed.push(seen);
  }

  get result(): Result {
    if (this.failed) return 'FAILED';
    if (this.skipped !== undefined) return 'SKIPPED';
    if (this.warned) return 'WARNING';
    return this.reviewed.length > 0 ? 'REVIEW' : 'PASSED';
  }

  /** The failures and warnings, one line each. */
  findings(severity: Severity): string[] {
    return this.log.filter((l) => !l.passed && l.severity === severity).map((l) => `${l.condition}: ${l.detail}`);
  }

  get skipReason(): string | undefined {
    return this.skipped;
  }
}

export interface Verdict {
  module: string;
  result: Result;
  failures: string[];
  warnings: string[];
  reviewed: string[];
  skipReason?: string;
  conditions: number;
}

/** Runs one module to its end, as the suite's runner does, and gives its verdict. */
export async function runModule(name: string, body: (m: ModuleRun) => Promise<void>): Promise<Verdict> {
  const m = new ModuleRun(name);
  try {
    await body(m);
  } catch (err) {
    if (!(err instanceof Stopped) && !(err instanceof Skipped)) {
      // Anything else (the OP unreachable, a body that is not JSON where JSON must be) fails it.
      m.check('unexpected', 'FAILURE', () => (err instanceof Error ? err.stack ?? err.message : String(err)));
    }
  }
  return {
    module: name,
    result: m.result,
    failures: m.findings('FAILURE'),
    warnings: m.findings('WARNING'),
    reviewed: m.reviewed,
    skipReason: m.skipReason,
    conditions: m.log.length,
  };
}

/**
 * One module as one test, its verdict kept in `verdicts` for the plan's report: FAILED fails the
 * test; SKIPPED marks it skipped; PASSED, WARNING and REVIEW pass it.
 */
export function moduleTest(verdicts: Verdict[], name: string, body: (m: ModuleRun) => Promise<void>): void {
  it(name, async (ctx) => {
    const verdict = await runModule(name, body);
    verdicts.push(verdict);
    expect(verdict.failures, `${name}: ${verdict.result}`).toEqual([]);
    expect(verdict.result).not.toBe('FAILED');
    if (verdict.result === 'SKIPPED') ctx.skip(verdict.skipReason);
  });
}

/**
 * Shannon entropy of a string as the suite measures it (EnsureMinimumAuthorizationCodeEntropy):
 * the entropy per character of its own character distribution, times its length, in bits.
 */
export function shannonBits(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    perChar -= p * Math.log2(p);
  }
  return perChar * value.length;
}

/** The report of a plan's run: a markdown table, module by module. */
export function reportTable(verdicts: readonly Verdict[]): string {
  const rows = verdicts.map((v) => {
    const notes = [...v.failures, ...v.warnings.map((w) => `warning: ${w}`), ...v.reviewed.map((r) => `reviewed: ${r}`), ...(v.skipReason ? [`skipped: ${v.skipReason}`] : [])];
    return `| ${v.module} | ${v.result} | ${notes.join('; ').replace(/\|/g, '\\|') || '-'} |`;
  });
  return ['| module | result | notes |', '|---|---|---|', ...rows].join('\n');
}
