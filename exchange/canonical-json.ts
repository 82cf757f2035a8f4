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
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) {
        const item = (v as Record<string, unknown>)[k];
        // A key named __proto__ (JSON.parse makes it an own key) would set the copy's prototype
        // and drop out of the text; defined, it stays a key. (A copy without a prototype would
        // need no exception, and take JSON.stringify half as long again.)
        if (k === '__proto__')
          Object.defineProperty(sorted, k, {
            value: item,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else sorted[k] = item;
      }
      return sorted;
    }
    return v;
  });
}
