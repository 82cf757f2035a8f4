/** Escaping for the HTML report: every text of a record may carry what the server sent. */

/** Escapes text for HTML element content and attribute values; drops control characters. */
export function escapeHtml(value: unknown): string {
  return (
    String(value)
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;')
  );
}
