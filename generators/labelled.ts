/**
 * Shared types of the generators: every generated value carries the rule it was built to keep or
 * break, so a failing conformance check can say which rule of the interface document it exercised.
 */

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
