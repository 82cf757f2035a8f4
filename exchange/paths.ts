/** Request paths of the interface, percent-encoded the way the suite sends them. */

export const COUNTERPARTIES = '/api/v1/counterparties';

/** Percent-encodes one path segment: everything but RFC 3986 unreserved characters. */
export function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The path of one counterparty; the whole reference is one encoded segment. */
export function counterpartyPath(reference: string): string {
  return `${COUNTERPARTIES}/${encodePathSegment(reference)}`;
}

/** The path of a reference holding raw slashes: each part is encoded, the slashes are kept. */
export function rawSlashCounterpartyPath(reference: string): string {
  return `${COUNTERPARTIES}/${reference.split('/').map(encodePathSegment).join('/')}`;
}

/** Fills an operation's path template with values, each one encoded segment. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = Object.hasOwn(values, name) ? values[name] : undefined;
    if (v === undefined) throw new Error(`no value for path parameter ${name}`);
    return encodePathSegment(v);
  });
}
