/**
 * Hex dumps laid out as `xxd`, `xxd -g 1`, `hexdump -C` and `od -A x -t x1z` print them (blanks, padding, the
 * gutter and the closing offset line as vim's xxd and util-linux and GNU coreutils write them), and
 * PowerShell 7's `Format-Hex` as its documentation shows it; and what a reader gets back from such a dump's
 * lines. For the edge catalogue (secret-edges.ts) and the dump reader's tests (src/redact/hexdump.test.ts).
 */

/** The rows of a dump: 16 bytes each, with their offset. */
function rows(b: Buffer): { at: number; row: number[] }[] {
  const out: { at: number; row: number[] }[] = [];
  for (let at = 0; at < b.length; at += 16) out.push({ at, row: [...b.subarray(at, at + 16)] });
  return out;
}

const hex2 = (x: number) => x.toString(16).padStart(2, "0");
const ascii = (row: number[], other = ".") =>
  row.map((x) => (x >= 0x20 && x <= 0x7e ? String.fromCharCode(x) : other)).join("");

/** `xxd` output: an 8-digit offset and `:`, bytes in groups of `group` (padded to the row), the gutter. */
export function xxd(b: Buffer, group = 2): string {
  const width = 32 + 16 / group - 1;
  return rows(b)
    .map(({ at, row }) => {
      const groups: string[] = [];
      for (let i = 0; i < row.length; i += group)
        groups.push(
          row
            .slice(i, i + group)
            .map(hex2)
            .join(""),
        );
      return `${at.toString(16).padStart(8, "0")}: ${groups.join(" ").padEnd(width)}  ${ascii(row)}`;
    })
    .join("\n");
}

/** `hexdump -C` output: two blanks after the offset and after the eighth byte, the gutter between bars. */
export function hexdumpC(b: Buffer): string {
  const lines = rows(b).map(({ at, row }) => {
    let hex = "";
    for (let i = 0; i < 16; i++)
      hex += (i < row.length ? `${hex2(row[i] as number)} ` : "   ") + (i === 7 ? " " : "");
    return `${at.toString(16).padStart(8, "0")}  ${hex} |${ascii(row)}|`;
  });
  return [...lines, b.length.toString(16).padStart(8, "0")].join("\n");
}

/** `od -A x -t x1z` output: a 6-digit offset, a blank before each byte, the gutter between `>` and `<`. */
export function odX1z(b: Buffer): string {
  const lines = rows(b).map(
    ({ at, row }) =>
      `${at.toString(16).padStart(6, "0")}${row
        .map((x) => ` ${hex2(x)}`)
        .join("")
        .padEnd(48)}  >${ascii(row)}<`,
  );
  return [...lines, b.length.toString(16).padStart(6, "0")].join("\n");
}

/** PowerShell 7's `Format-Hex` of a file: its header, a 16-digit offset, upper-case bytes, the gutter. */
export function formatHex(b: Buffer, label: string): string {
  const head = [
    `   Label: ${label}`,
    "",
    "          Offset Bytes                                           Ascii",
    "                 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F",
    "          ------ ----------------------------------------------- -----",
  ];
  const lines = rows(b).map(
    ({ at, row }) =>
      `${at.toString(16).toUpperCase().padStart(16, "0")} ${row
        .map((x) => hex2(x).toUpperCase())
        .join(" ")
        .padEnd(47)} ${ascii(row, "\uFFFD")}`,
  );
  return [...head, ...lines].join("\n");
}

/**
 * What a reader gets back from the lines of dumps with an offset column (xxd, hexdump -C, od, Format-Hex):
 * their hex bytes decoded, and their gutters joined. At most 16 bytes a line (the forms' rows), so a gutter
 * that starts like hex is not taken for bytes.
 */
export function dumpReadings(lines: string[]): string[] {
  let hex = "";
  let gutters = "";
  for (const line of lines) {
    const head = /^\s*[0-9A-Fa-f]{4,16}:?/.exec(line);
    if (head === null) continue;
    let rest = line.slice(head[0].length);
    let bytes = 0;
    for (let g = /^\s{1,2}([0-9A-Fa-f]{2,4})(?![0-9A-Fa-f])/.exec(rest); g !== null && bytes < 16; ) {
      const group = g[1] ?? "";
      hex += group;
      bytes += group.length / 2;
      rest = rest.slice(g[0].length);
      g = /^\s{1,2}([0-9A-Fa-f]{2,4})(?![0-9A-Fa-f])/.exec(rest);
    }
    if (bytes > 0) gutters += rest.trim().replace(/^[|>](.*)[|<]$/, "$1");
  }
  return [Buffer.from(hex, "hex").toString("latin1"), gutters];
}
