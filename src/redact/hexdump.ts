/**
 * Hex dumps read back to their bytes (issue 40): any layout with an offset column, an ASCII gutter or both —
 * `xxd` (`00000000: 2320 6170  # ap`), `hexdump -C` (`00000000  23 20 61 70  |# ap|`), `od -A x -t x1z`
 * (`000000 23 20 61 70  >.# ap<`), PowerShell's `Format-Hex` (`0000000000000000 23 20 61 70 # ap`), and
 * their variants: bytes grouped by 1, 2 or 4, little-endian words (`hexdump`, `od -x`, `xxd -e`), octal or
 * decimal offsets. A dumped file cuts a secret every 16 bytes twice over, in the hex columns and in the
 * gutter; the scanner's view holds each dump line as the bytes it shows and the breaks between a dump's lines
 * as nothing, so it reads the file as written, and a finding there maps back to whole dump lines. (`xxd -p`,
 * plain hex with no offset, is a wrapped dump: reflow.ts joins it and unwrap.ts decodes it.)
 */

/** A range of the text replaced by `insert` in the view (reflow.ts's Splice). */
interface Splice {
  from: number;
  to: number;
  insert: string;
}

/** One line of a dump as read. */
interface DumpLine {
  /** Where the offset starts (past any indentation) and where the line ends. */
  start: number;
  end: number;
  /** The offset column as written. */
  offset: string;
  bytes: number[];
  /** Its gutter agreed with its bytes. */
  proven: boolean;
}

/** A line's indentation, its offset and what follows it (`:`, blanks), from the line's start (sticky). */
const OFFSET = /([ \t]{0,16})([0-9A-Fa-f]{4,16})(?::[ \t]{1,10}|[ \t]{1,4})(?=[0-9A-Fa-f])/y;

/** Byte groups of one width (2, 4 or 8 hex digits), one or two blanks apart (sticky). */
const GROUP = /[0-9A-Fa-f]{2,8}(?![0-9A-Fa-f])/y;

/** Most byte groups a line is read for (64 bytes a line: `xxd -c 64`). */
const MAX_GROUPS = 64;

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const printable = (b: number) => b >= 0x20 && b <= 0x7e;

/** The bytes of groups (each `width` hex digits), in order as written or as little-endian words. */
function groupBytes(groups: readonly string[], littleEndian: boolean): number[] {
  const out: number[] = [];
  for (const g of groups) {
    const bytes: number[] = [];
    for (let i = 0; i < g.length; i += 2) bytes.push(Number.parseInt(g.slice(i, i + 2), 16));
    if (littleEndian) bytes.reverse();
    out.push(...bytes);
  }
  return out;
}

/**
 * Does `gutter` show `bytes`: each printable byte as itself, any other as one character (`.`, `�`, a
 * blank), and enough of them printable to tell (four, or all of a short row, and a quarter of the row). A
 * tail of blanks and unprintable bytes may have been trimmed off the line.
 */
function shows(bytes: readonly number[], n: number, gutter: string): boolean {
  if (gutter.length === 0 || gutter.length > n) return false;
  let seen = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i] as number;
    if (!printable(b)) continue;
    if (i >= gutter.length ? b !== 0x20 : gutter.charCodeAt(i) !== b) return false;
    seen++;
  }
  return seen >= Math.min(4, n) && seen * 4 >= n;
}

/**
 * Is `rest` (what follows a line's hex) a gutter of the first `n` of `bytes`: `|…|`, `>…<`, or the characters
 * alone after blanks.
 */
function gutterOf(bytes: readonly number[], n: number, rest: string, escaped: boolean): boolean {
  // In JSON-escaped text a gutter's quote or backslash is escaped.
  const r = escaped ? rest.replace(/\\(["\\/])/g, "$1") : rest;
  const trimmed = r.trim();
  const open = trimmed.charAt(0);
  if ((open === "|" || open === ">") && trimmed.endsWith(open === "|" ? "|" : "<") && trimmed.length >= 2)
    if (shows(bytes, n, trimmed.slice(1, -1))) return true;
  // The gutter starts after one blank or more; blanks among them may be the gutter's own (bytes 0x20).
  for (let s = 1; s <= r.length && (r.charCodeAt(s - 1) === 32 || r.charCodeAt(s - 1) === 9); s++)
    if (shows(bytes, n, r.slice(s).replace(/[ \t]+$/, ""))) return true;
  return false;
}

/** Reads [start, end) as a dump line, or null. */
function readLine(text: string, start: number, end: number, escaped: boolean): DumpLine | null {
  OFFSET.lastIndex = start;
  const head = OFFSET.exec(text);
  if (head === null || OFFSET.lastIndex >= end) return null;
  const groups: string[] = [];
  const ends: number[] = [];
  let at = OFFSET.lastIndex;
  let width = 0;
  while (at < end && groups.length < MAX_GROUPS) {
    GROUP.lastIndex = at;
    const g = GROUP.exec(text);
    if (g === null || GROUP.lastIndex > end) break;
    const w = g[0].length;
    if (width === 0) {
      // A line's first group sets the width (a last line of `xxd -e` may hold one shorter group alone).
      if (w % 2 === 1) break;
      width = w;
    } else if (w > width || w % 2 === 1 || (w < width && at - (ends[ends.length - 1] ?? at) > width + 1))
      break;
    groups.push(g[0]);
    at = GROUP.lastIndex;
    ends.push(at);
    // A shorter group is the last bytes of the dump, which a group width does not divide.
    if (w < width) break;
    // One or two blanks to the next group (`hexdump -C` puts two after the eighth byte), more before a
    // shorter last group (`xxd -e` aligns it right).
    let next = at;
    while (next < end && next - at < width + 1 && text.charCodeAt(next) === 32) next++;
    if (next === at || next >= end || !isHex(text.charCodeAt(next))) break;
    at = next;
  }
  if (groups.length === 0) return null;
  const offset = head[2] ?? "";
  const start0 = start + (head[1] ?? "").length;
  // Fewest groups first would misread a gutter that starts like hex (`cafe`): most groups first, the first
  // whose rest is a gutter wins, in the order written or as little-endian words.
  const orders =
    width === 2 ? [groupBytes(groups, false)] : [groupBytes(groups, false), groupBytes(groups, true)];
  let n = (orders[0] as number[]).length;
  for (let k = groups.length; k >= 1; k--) {
    const at = ends[k - 1] as number;
    // A gutter follows a blank.
    if (at < end && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9)) {
      const rest = text.slice(at, end);
      for (const bytes of orders)
        if (gutterOf(bytes, n, rest, escaped))
          return { start: start0, end, offset, bytes: bytes.slice(0, n), proven: true };
    }
    n -= (groups[k - 1] as string).length / 2;
  }
  // No gutter: only hex to the line's end. Words with no `:` after the offset are `hexdump`'s and `od -x`'s,
  // little-endian; `xxd` writes a `:` and its bytes in order.
  if (text.slice(ends[groups.length - 1], end).trim() !== "") return null;
  const little = width > 2 && !text.slice(start0, start0 + offset.length + 1).endsWith(":");
  return { start: start0, end, offset, bytes: orders[little ? 1 : 0] as number[], proven: false };
}

/** Does the offset step from `a` to `b` by `n` bytes (in hex; in octal or decimal when the digits allow). */
function steps(a: string, b: string, n: number): boolean {
  const digits = `${a}${b}`;
  const radixes = /[a-f]/i.test(digits) ? [16] : /[89]/.test(digits) ? [16, 10] : [16, 8, 10];
  return n > 0 && radixes.some((r) => Number.parseInt(b, r) - Number.parseInt(a, r) === n);
}

/** Bytes as the view reads them: text as is, NUL as a line break (strings in a binary), other bytes blank. */
function viewOf(bytes: readonly number[]): string {
  let s = "";
  for (const b of bytes)
    s += printable(b) || b === 9 || b === 10 || b === 13 ? String.fromCharCode(b) : b === 0 ? "\n" : " ";
  return s;
}

/** Line breaks as written or JSON-escaped once. */
const BREAK = /\r?\n|(?:\\r)?\\n/g;

/** Cheap test that a line may open a dump: an offset's first hex digit after at most 16 blanks. */
function mayOpen(text: string, at: number): boolean {
  let i = at;
  while (i - at < 16 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return isHex(text.charCodeAt(i)) && isHex(text.charCodeAt(i + 3));
}

/**
 * A JSON-escaped line's part inside its string: a dump's first line opens after the string's quote
 * (`{"output":"00000000: …`), its last one closes before it.
 */
function inString(text: string, start: number, end: number): [number, number] {
  let from = start;
  if (!mayOpen(text, start))
    for (
      let q = text.indexOf('"', start);
      q !== -1 && q < end && q - start < 80;
      q = text.indexOf('"', q + 1)
    )
      if (mayOpen(text, q + 1)) {
        from = q + 1;
        break;
      }
  for (let q = text.indexOf('"', from); q !== -1 && q < end; q = text.indexOf('"', q + 1))
    if (text.charCodeAt(q - 1) !== 92) return [from, q];
  return [from, end];
}

/**
 * The splices that read the hex dumps of `text` as their bytes: each dump line (offset to line end) replaced
 * by its bytes, each break between two lines of one dump by nothing. A line counts when its gutter shows its
 * bytes, or its offset steps by its byte count from the line before or to the line after (a dump with no
 * gutter: `od -t x1`, `hexdump`).
 */
export function hexDumpSplices(text: string, out: Splice[]): void {
  const lines: DumpLine[] = [];
  const flush = () => {
    const n = lines.length;
    const ok = lines.map(
      (l, i) =>
        l.proven ||
        (i > 0 &&
          steps((lines[i - 1] as DumpLine).offset, l.offset, (lines[i - 1] as DumpLine).bytes.length)) ||
        (i + 1 < n && steps(l.offset, (lines[i + 1] as DumpLine).offset, l.bytes.length)),
    );
    for (let i = 0; i < n; i++) {
      const l = lines[i] as DumpLine;
      if (!ok[i]) continue;
      out.push({ from: l.start, to: l.end, insert: viewOf(l.bytes) });
      if (i + 1 < n && ok[i + 1]) out.push({ from: l.end, to: (lines[i + 1] as DumpLine).start, insert: "" });
    }
    lines.length = 0;
  };
  let lineStart = 0;
  let escapedBefore = false;
  BREAK.lastIndex = 0;
  for (;;) {
    const m = BREAK.exec(text);
    const end = m === null ? text.length : m.index;
    const escaped = escapedBefore || (m !== null && m[0].charCodeAt(0) === 92);
    const [from, to] = escaped ? inString(text, lineStart, end) : [lineStart, end];
    const line = to - from >= 12 && mayOpen(text, from) ? readLine(text, from, to, escaped) : null;
    if (line !== null) lines.push(line);
    else if (lines.length > 0) flush();
    if (m === null) break;
    escapedBefore = m[0].charCodeAt(0) === 92;
    lineStart = BREAK.lastIndex;
  }
  if (lines.length > 0) flush();
}
