/**
 * One text per JSON value, whatever the order of its object keys. It sits here, below the
 * generators, the oracles and the probes, because all three compare values with it: the
 * generators' unmappers, the oracles' states of a counterparty, the probes' equivalent cases.
 */

/**
 * A canonical JSON text of a value: object keys sorted, so two values that differ only in key
 * order compare equal. Used by the unmappers to check that a decomposition rebuilds the value.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      // Object.fromEntries defines its keys: a key named __proto__ (JSON.parse makes it an own
      // key) stays a key instead of setting the copy's prototype. (A copy without a prototype
      // would take JSON.stringify half as long again.)
      const entries: [string, unknown][] = [];
      for (const k of Object.keys(v).sort()) entries.push([k, (v as Record<string, unknown>)[k]]);
      return Object.fromEntries(entries);
    }
    return v;
  });
}

const texts = new WeakMap<object, string>();

/**
 * canonicalJson of a value that is never changed after (an answer's body as recorded, a state
 * the comparisons made), kept per object: the judge compares one state or answer with many (the
 * reads around a batch of refused PATCHes, once per PATCH), and the text of a whole counterparty,
 * made again each time, was most of its time. Only for objects nothing changes afterwards.
 */
export function frozenCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return canonicalJson(value);
  let text = texts.get(value);
  if (text === undefined) {
    text = canonicalJson(value);
    texts.set(value, text);
  }
  return text;
}
