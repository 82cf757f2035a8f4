/**
 * Media types as RFC 9110 writes them (§8.3.1, parameters §5.6.6):
 *
 *   media-type = type "/" subtype parameters
 *   parameters = *( OWS ";" OWS [ parameter ] )
 *   parameter  = parameter-name "=" parameter-value
 *   parameter-value = ( token / quoted-string )
 *
 * Type, subtype and parameter names are case-insensitive; a parameter value may be a token or a
 * quoted-string, "the quoted and unquoted values are equivalent"; an empty parameter (`;;`, a
 * trailing `;`) is allowed. Hand-written, because the libraries at hand do not parse this grammar:
 * Node's util.MIMEType follows the WHATWG MIME Sniffing standard (it accepts what RFC 9110
 * refuses, `application/json; charset`, and reads no quoted-pair the same way), and jshttp's
 * content-type (not a dependency here) throws on the empty parameters RFC 9110 allows.
 */

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const TYPE_RE = new RegExp(`^(${TOKEN})/(${TOKEN})`);
const OWS = /^[ \t]*/;
const PARAM_RE = new RegExp(
  `^(${TOKEN})=(?:(${TOKEN})|"((?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*)")`,
);

export interface MediaType {
  /** type/subtype in lower case. */
  essence: string;
  type: string;
  subtype: string;
  /** Parameter names in lower case, values unquoted (case kept). */
  parameters: readonly (readonly [string, string])[];
  /** Why the value breaks the grammar past type/subtype, or undefined when it does not. */
  problem?: string;
}

/**
 * Parses a Content-Type value (its surrounding white space already removed). undefined when not
 * even `type/subtype` can be read; otherwise the media type, with `problem` set when what follows
 * breaks the grammar (the essence is still what the sender named).
 */
export function parseMediaType(value: string): MediaType | undefined {
  const head = TYPE_RE.exec(value);
  if (!head) return undefined;
  const type = head[1]!.toLowerCase();
  const subtype = head[2]!.toLowerCase();
  const parameters: [string, string][] = [];
  let rest = value.slice(head[0].length);
  let problem: string | undefined;
  while (rest !== '') {
    rest = rest.slice(OWS.exec(rest)![0].length);
    if (rest === '') break;
    if (rest[0] !== ';') {
      problem = `unexpected ${JSON.stringify(rest.slice(0, 12))} after ${parameters.length ? 'a parameter' : 'the media type'}`;
      break;
    }
    rest = rest.slice(1);
    rest = rest.slice(OWS.exec(rest)![0].length);
    if (rest === '' || rest[0] === ';') continue;
    const p = PARAM_RE.exec(rest);
    if (!p) {
      problem = `a parameter that is not name=value: ${JSON.stringify(rest.split(';')[0]!.trim())}`;
      break;
    }
    const raw = p[2] ?? p[3]!.replace(/\\(.)/g, '$1');
    parameters.push([p[1]!.toLowerCase(), raw]);
    rest = rest.slice(p[0].length);
  }
  return { essence: `${type}/${subtype}`, type, subtype, parameters, ...(problem ? { problem } : {}) };
}

/** The value of parameter `name` (any case), or undefined. */
export function parameter(media: MediaType, name: string): string | undefined {
  const lower = name.toLowerCase();
  return media.parameters.find(([n]) => n === lower)?.[1];
}

/** application/json itself. */
export function isJson(media: MediaType | undefined): boolean {
  return media?.essence === 'application/json';
}

/** A structured syntax suffix +json (RFC 6838 §4.2.8): JSON text, with semantics of its own. */
export function isJsonSuffix(media: MediaType | undefined): boolean {
  return media !== undefined && media.essence !== 'application/json' && media.subtype.endsWith('+json');
}
