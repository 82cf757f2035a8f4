/**
 * Shared types of the generators: every generated value carries the rule it was built to keep or
 * break, so a failing conformance check can say which rule of the interface document it exercised.
 */
import type { Arbitrary } from 'fast-check';
import { canonicalJson } from '../exchange/canonical-json.ts';

/** The rule a generated value was built to keep or break. */
export interface Rule {
  /** JSON path-ish location of the rule, e.g. 'counterpartyDetails.remarks' or 'body'. */
  field: string;
  /** The JSON Schema keyword of the rule: minLength, maxLength, pattern, enum, type, required, minProperties, minItems, additionalProperties, format, json ... */
  keyword: string;
  /** true: the value keeps the rule (valid input); false: it breaks it. */
  keeps: boolean;
  /** One human line, e.g. 'remarks of length 91 > maxLength 90' or 'remarks with a trailing space'. */
  description: string;
}

export interface Labelled<T> {
  value: T;
  rule: Rule;
}

/** Builds a Labelled value. */
export function labelled<T>(value: T, rule: Rule): Labelled<T> {
  return { value, rule };
}

/** A rule the value keeps. */
export function keeps(field: string, keyword: string, description: string): Rule {
  return { field, keyword, keeps: true, description };
}

/** A rule the value breaks. */
export function breaks(field: string, keyword: string, description: string): Rule {
  return { field, keyword, keeps: false, description };
}

/** Whether two labelled values carry the same value and the same rule. */
export function sameLabelled(a: Labelled<unknown>, b: Labelled<unknown>): boolean {
  return canonicalJson(a.value) === canonicalJson(b.value) && canonicalJson(a.rule) === canonicalJson(b.rule);
}

/** Whether `v` looks like a Labelled value (has a value and a rule). */
export function isLabelled(v: unknown): v is Labelled<unknown> {
  if (v === null || typeof v !== 'object' || !('value' in v) || !('rule' in v)) return false;
  const rule = (v as { rule: unknown }).rule;
  return rule !== null && typeof rule === 'object' && typeof (rule as Rule).field === 'string';
}

/**
 * `arb.map(build)` with an unmapper, so that fast-check can shrink values it did not generate
 * itself (the `examples` of fc.assert). `sources(value)` lists candidate decompositions of a
 * value; the first one that `arb` recognises and that rebuilds to an equal value is used.
 * A value no candidate explains is reported as not shrinkable (the unmapper throws).
 */
export function invertibleMap<S, T>(
  arb: Arbitrary<S>,
  build: (source: S) => T,
  sources: (value: unknown) => Iterable<S>,
  same: (a: T, b: T) => boolean,
): Arbitrary<T> {
  return arb.map(build, (value: unknown): S => {
    for (const source of sources(value)) {
      if (arb.canShrinkWithoutContext(source) && same(build(source), value as T)) return source;
    }
    throw new Error('value not produced by this arbitrary');
  });
}

/** A character shown in a rule description: JSON-quoted, with its code point. */
export function showChar(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  return `${JSON.stringify(c)} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
}

/** The length JSON Schema gives a string: its number of code points. */
export function codePointLength(s: string): number {
  return [...s].length;
}

/** The JSON type name of a value, as JSON Schema's `type` keyword names it. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
