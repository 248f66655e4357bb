/** Parsers for option values; a value they refuse is a usage error (exit 2). */
import { InvalidArgumentError } from 'commander';

export function int(name: string) {
  return (value: string): number => {
    if (!/^[0-9]{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    }
    return Number(value);
  };
}

/** For an option that may be repeated. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A comma-separated list; blanks are dropped. */
export function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}
