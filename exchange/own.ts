/**
 * Lookups of a name that can come from data (a body's or an answer's key, a header name, a HAR
 * field, a variable's name, a command-line word) in a plain object. `__proto__`, `constructor`,
 * `toString` and `hasOwnProperty` are ordinary names there, and a plain object answers them from
 * Object.prototype: `own` and `hasOwn` answer only from the object's own properties. The
 * data-key rule of the type check (scripts/data-keys.ts) flags every other lookup of a string
 * key in a plain object. The servers import only spec/ and write `Object.hasOwn` where they need it.
 */

/** The value of `record`'s own property `key`, or undefined (never one of Object.prototype's). */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * A JSON object (not null, not an array): its keys are data names, read with `own` and `ownOf`.
 * The one definition outside tests/ but the servers' (they import only spec/, and keep their own).
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value at `key` of a value that may be an object (parsed JSON), or undefined. */
export function ownOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** `record`'s own property `key` taken out: its value and the rest; undefined where it has none. */
export function takeOwn(
  record: Readonly<Record<string, unknown>>,
  key: string,
): { value: unknown; rest: Record<string, unknown> } | undefined {
  return Object.hasOwn(record, key)
    ? { value: record[key], rest: Object.fromEntries(Object.entries(record).filter(([k]) => k !== key)) }
    : undefined;
}
