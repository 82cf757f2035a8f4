/**
 * Lookups for the data-key rule's self-test (tests/self/data-keys.spec.ts, scripts/data-keys.ts):
 * a line ending in `// flagged: <kind>, ...` is one the rule must report, once per kind listed, and
 * it must report no other line. The rule covers the product's files, not the tests', so this file
 * does not fail the type check: the self-test hands it to the rule.
 */
const TABLE: Readonly<Record<string, { suffix: string }>> = {
  createdBy: { suffix: 'not-writable' },
};

/** Each a lookup of a name that can come from data in something that answers Object.prototype's. */
export function violations(name: string, data: Record<string, unknown>, env: NodeJS.ProcessEnv): unknown[] {
  const out: Record<string, unknown> = {};
  const lists: Record<string, unknown[]> = {};
  out[name] = TABLE[name]?.suffix; // flagged: index, index
  const known = name in TABLE; // flagged: in
  Object.assign(out, data); // flagged: assign
  const { [name]: value } = data; // flagged: pattern
  (lists[name] ??= []).push(value); // flagged: index
  const variable = env[name]; // flagged: index
  const parsed: unknown = JSON.parse('{}')[name]; // flagged: index
  const prefixed = data[`x-${name}`]; // flagged: index
  const elsewhere = Object.hasOwn(out, name) ? data[name] : undefined; // flagged: index
  for (const key of Object.keys(out)) out[key] = data[key]; // flagged: index
  return [known, variable, parsed, prefixed, elsewhere];
}

/** Each the same lookup written so that it cannot reach Object.prototype. */
export function allowed(name: string, data: Record<string, unknown>, pick: 'a' | 'b'): unknown[] {
  const seen: unknown[] = [];
  seen.push(Object.hasOwn(TABLE, name) ? TABLE[name] : undefined);
  if (Object.hasOwn(data, name)) seen.push(data[name]);
  seen.push(typeof name === 'string' && Object.hasOwn(data, name) && data[name] === 1);
  for (const key of Object.keys(data)) seen.push(data[key]);
  for (const [key] of Object.entries(data)) seen.push(data[key]);
  for (const key of Object.keys(data).sort().reverse()) seen.push(data[key]);
  const dictionary: Record<string, number> = Object.create(null);
  dictionary[name] = 1;
  seen.push(name in dictionary);
  delete data[name];
  const { [name]: _dropped, ...rest } = data;
  seen.push(rest, TABLE['createdBy'], data[pick], new Map([[name, 1]]).get(name));
  seen.push(Object.fromEntries([[name, 1]]), { ...data }, { [name]: 1 }, [1, 2][seen.length]);
  seen.push(Object.assign({}, { suffix: name }));
  return seen;
}
