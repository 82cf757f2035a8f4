/**
 * The forms of the secrets the redaction rule (exchange/redact.ts) looks for, in one regular
 * expression per kind: those searched in any case (a long secret and its byte encodings), and
 * those searched as they are (a short secret, judged in place). A match is taken back to the
 * secret it is by the form's text, compared as the expression compares it.
 */
/** A credential to keep out of every record (exchange/redact.ts searches its forms). */
export interface Secret {
  value: string;
  /** What it is shown as instead ($API_TOKEN, a variable's name). */
  shownAs: string;
  /** Searched inside any text, in any case and encoding; otherwise only where it stands as a credential (exchange/redact.ts). */
  everywhere: boolean;
}

/**
 * A character as a case-insensitive regular expression compares it (ECMA-262 Canonicalize, without
 * the u flag): upper-cased, unless that gives more than one character or turns a non-ASCII one
 * into ASCII.
 */
function canonicalChar(c: string): string {
  const u = c.toUpperCase();
  return u.length !== 1 || (c.charCodeAt(0) >= 128 && u.charCodeAt(0) < 128) ? c : u;
}

const ASCII = /^[ -~\t\n\r]*$/;

/** `s` as a case-insensitive regular expression compares it, character by character. */
function canonical(s: string): string {
  return ASCII.test(s) ? s.toUpperCase() : s.replace(/[^]/g, canonicalChar);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** The forms one search looks for: a form, the secrets it may be (same text, or same text in another case). */
export interface Form {
  secrets: Secret[];
  length: number;
}

/** The forms of one kind: searched in any case and anywhere, or as they are and only as credentials. */
export class FormSet {
  private readonly forms = new Map<string, Form>();
  /** What is derived from the forms, made again after a form is added. */
  private compiled: { pattern: RegExp; longest: number; shortest: number } | undefined | null = null;

  constructor(private readonly caseless: boolean) {}

  private key(value: string): string {
    return this.caseless ? canonical(value) : value;
  }

  add(secret: Secret): void {
    const key = this.key(secret.value);
    const form = this.forms.get(key);
    if (form) form.secrets.push(secret);
    else this.forms.set(key, { secrets: [secret], length: secret.value.length });
    this.compiled = null;
  }

  values(): IterableIterator<Form> {
    return this.forms.values();
  }

  /**
   * One expression of every form, longest first (at a place, the longest form found is the one
   * taken), and the lengths of the longest and the shortest form; undefined when it has none.
   */
  get search(): { pattern: RegExp; longest: number; shortest: number } | undefined {
    if (this.compiled === null) {
      const values = [...this.forms.values()]
        .map((f) => f.secrets[0]!.value)
        .sort((a, b) => b.length - a.length);
      this.compiled =
        values.length === 0
          ? undefined
          : {
              pattern: new RegExp(values.map(escapeRegExp).join('|'), this.caseless ? 'gi' : 'g'),
              longest: values[0]!.length,
              shortest: values[values.length - 1]!.length,
            };
    }
    return this.compiled;
  }

  /** The secret a match is: the one written exactly so, else the first registered of its form. */
  secretOf(found: string): Secret | undefined {
    const form = this.forms.get(this.key(found));
    return form?.secrets.find((s) => s.value === found) ?? form?.secrets[0];
  }
}
