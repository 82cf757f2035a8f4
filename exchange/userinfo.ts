/**
 * The userinfo of a URL (`http://user:password@host/`) in a text: a credential by its place,
 * whether or not the suite was given it (a HAR's URLs, a Location or Referer header, a body, a
 * proxy's upstream). The redaction rule (exchange/redact.ts) replaces it wherever it stands in
 * what the suite writes, and the validator learns the user and password of the URLs a request
 * carries, to find them alone.
 */

/**
 * The userinfo of a URL (see the header), the part between `//` and the last `@` of the authority.
 * It starts at `//` and looks behind for a scheme (one that no scheme character comes before) or
 * a place a URL may start: V8 finds a literal first character fast, where trying a scheme at each
 * character of a text was twenty times slower.
 */
export const USERINFO =
  /\/\/(?<=(?:(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:|^|[\s"'<>()[\]{},;=`])\/\/)(?!\$REDACTED@)([^\s/?#\\"'<>`]+)@/dg;

/** Whether `chars` holds the userinfo of a URL. */
export function holdsUserinfo(chars: string): boolean {
  if (!chars.includes('//') || !chars.includes('@')) return false;
  USERINFO.lastIndex = 0;
  const found = USERINFO.test(chars);
  // matchAll starts where the expression was left.
  USERINFO.lastIndex = 0;
  return found;
}

/**
 * The user and password of each URL with userinfo in `text` (as is, and percent-decoded), for
 * validated traffic: a request's URL and headers carry them to the target, which may echo them
 * anywhere, alone.
 */
export function userinfoCredentials(text: string): string[] {
  if (!holdsUserinfo(text)) return [];
  const out = new Set<string>();
  for (const m of text.matchAll(USERINFO)) {
    const info = m[1]!;
    const colon = info.indexOf(':');
    for (const part of colon < 0 ? [info] : [info.slice(0, colon), info.slice(colon + 1)]) {
      out.add(part);
      try {
        out.add(decodeURIComponent(part));
      } catch {
        // Not percent-encoded UTF-8: the part as it is only.
      }
    }
  }
  out.delete('');
  return [...out];
}
