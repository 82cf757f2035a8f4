/**
 * A JSON value with a function applied to every string in it, keys too, copied only where
 * something changed: what the redaction of a parsed value needs (exchange/redact.ts). It walks
 * with a stack of its own, never by recursion, so a value of any depth is mapped: the suite reads
 * no body deeper than MAX_JSON_DEPTH (exchange/json-body.ts), and this holds whatever a caller
 * hands it. (No library the project has maps a value without recursion; this is twenty lines.)
 */

/** An array or object being copied by mapJson: its children, and what they became so far. */
interface CopyFrame {
  source: unknown[] | Record<string, unknown>;
  /** The object's keys (undefined: an array), and what each became. */
  keys: string[] | undefined;
  newKeys: string[];
  children: unknown[];
  done: unknown[];
}

const isContainer = (v: unknown): v is unknown[] | Record<string, unknown> =>
  v !== null && typeof v === 'object';

function copyFrame(v: unknown[] | Record<string, unknown>, text: (s: string) => string): CopyFrame {
  if (Array.isArray(v)) return { source: v, keys: undefined, newKeys: [], children: v, done: [] };
  // Its own members, names and values together: a name such as __proto__ is a member like any other.
  const entries = Object.entries(v);
  const keys = entries.map(([k]) => k);
  return { source: v, keys, newKeys: keys.map(text), children: entries.map(([, x]) => x), done: [] };
}

/** The frame's copy, or its source when no key and no child changed. */
function rebuilt(f: CopyFrame): unknown {
  const same = f.done.every((x, i) => x === f.children[i]) && f.newKeys.every((k, i) => k === f.keys![i]);
  if (same) return f.source;
  if (f.keys === undefined) return f.done;
  return Object.fromEntries(f.newKeys.map((k, i) => [k, f.done[i]]));
}

/**
 * A JSON value with `text` applied to every string, keys too, copied only where something
 * changed; iterative (depth-first with an explicit stack), so no depth overflows the call stack.
 */
export function mapJson(value: unknown, text: (s: string) => string): unknown {
  const leaf = (v: unknown): unknown => (typeof v === 'string' ? text(v) : v);
  if (!isContainer(value)) return leaf(value);
  const stack: CopyFrame[] = [copyFrame(value, text)];
  for (;;) {
    const top = stack[stack.length - 1]!;
    if (top.done.length < top.children.length) {
      const child = top.children[top.done.length];
      if (isContainer(child)) stack.push(copyFrame(child, text));
      else top.done.push(leaf(child));
      continue;
    }
    stack.pop();
    const result = rebuilt(top);
    if (stack.length === 0) return result;
    stack[stack.length - 1]!.done.push(result);
  }
}
