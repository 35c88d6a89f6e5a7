/**
 * Inline base64 `data:` payloads become `[elided]` before redaction and chunking
 * (docs/memory-format.md#inline-data-payloads). The rule is the reference's, to the character, because it
 * changes text length and thus which split ids exist.
 */

const MARKER = ";base64,";
const B64 = /[A-Za-z0-9+/=]/;
const PREFIX_OK = /[A-Za-z0-9+\-.]/;
const MEDIA_BAD = /[\s,"']/u;

/** Replaces each `data:<media>;base64,<payload>` payload with `[elided]`. */
export function elideDataUris(text: string): string {
  if (!text.includes(MARKER)) return text;
  let out = "";
  // Start of the text not yet looked at: just past the previous marker, or past its elided payload.
  let head = 0;
  for (;;) {
    const at = text.indexOf(MARKER, head);
    if (at < 0) break;
    const payload = at + MARKER.length;
    let end = payload;
    while (end < text.length && B64.test(text[end] as string)) end++;
    out += text.slice(head, payload);
    if (end > payload && isDataUriHead(text.slice(head, at))) {
      out += "[elided]";
      head = end;
    } else head = payload;
  }
  return out + text.slice(head);
}

/** True when `before` ends in `data:<media type>` whose `data:` starts a token. */
function isDataUriHead(before: string): boolean {
  const d = before.lastIndexOf("data:");
  if (d < 0) return false;
  if (d > 0 && PREFIX_OK.test(before[d - 1] as string)) return false;
  return !MEDIA_BAD.test(before.slice(d + 5));
}
