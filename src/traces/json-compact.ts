/**
 * Compact JSON the way the reference (serde_json with `preserve_order`) writes it, for tool arguments the
 * reference re-serializes (Claude `tool_use.input`, pi `toolCall.arguments`, object-valued hermes and
 * parquet arguments). The text feeds chunking, so a different length changes split counts and thus which
 * chunk ids exist. `JSON.stringify` differs on floats (`1.0` vs `1`, `1e20`), integers beyond 2^53, and
 * integer-like keys (JS orders them first); for those the source text is re-parsed losslessly here.
 */

/** A JSON value that keeps number literals and object key order exactly as written. */
export type LosslessJson =
  | null
  | boolean
  | string
  | { readonly num: string }
  | LosslessJson[]
  | { readonly entries: [string, LosslessJson][] };

/** Thrown for text that is not JSON (or that the reference's parser rejects). */
export class JsonTextError extends Error {}

/** True when `JSON.parse` + `JSON.stringify` could differ from serde on this raw text. */
export function needsLosslessJson(raw: string): boolean {
  return /[0-9][.eE]|[0-9]{16}|"[0-9]+"\s*:/.test(raw);
}

/**
 * Serializes a parsed (plain) JSON value compactly; equal to serde's output unless `needsLosslessJson`.
 * A value nested too deep for the stack throws {@link NestedTooDeepError}, which the parsers turn into a
 * skipped record.
 */
export function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch (err) {
    throw tooDeep(err);
  }
}

/** Thrown when JSON is nested too deep to walk (it would overflow the stack). */
export class NestedTooDeepError extends Error {
  constructor() {
    super("JSON nested too deep to read");
  }
}

/** A stack overflow as a {@link NestedTooDeepError}; any other error unchanged. */
export function tooDeep(err: unknown): unknown {
  return err instanceof RangeError && /call stack/i.test(err.message) ? new NestedTooDeepError() : err;
}

/** Parses JSON text keeping number literals and key order (duplicate keys: first position, last value). */
export function parseLossless(text: string): LosslessJson {
  let i = 0;
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const fail = (what: string): never => {
    throw new JsonTextError(`${what} at offset ${i}`);
  };
  const str = (): string => {
    const start = i;
    i++;
    for (;;) {
      const q = text.indexOf('"', i);
      if (q < 0) fail("unterminated string");
      let bs = 0;
      for (let j = q - 1; j >= start && text.charCodeAt(j) === 92; j--) bs++;
      i = q + 1;
      if (bs % 2 === 0) break;
    }
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): LosslessJson => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const entries: [string, LosslessJson][] = [];
      const pos = new Map<string, number>();
      ws();
      if (text[i] === "}") {
        i++;
        return { entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected key");
        const k = str();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        const v = value();
        const at = pos.get(k);
        if (at === undefined) {
          pos.set(k, entries.length);
          entries.push([k, v]);
        } else entries[at] = [k, v];
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return { entries };
        } else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const items: LosslessJson[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return items;
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return items;
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    const m = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/.exec(
      text.slice(i, i + 400),
    );
    if (!m) return fail("unexpected token");
    i += m[0].length;
    if (m[0] === "true") return true;
    if (m[0] === "false") return false;
    if (m[0] === "null") return null;
    return { num: m[0] };
  };
  const v = value();
  ws();
  if (i !== text.length) fail("trailing text");
  return v;
}

/** Looks up a key of a lossless object (null when absent or not an object). */
export function losslessField(v: LosslessJson | undefined, key: string): LosslessJson | undefined {
  if (v === null || v === undefined || typeof v !== "object" || Array.isArray(v) || !("entries" in v))
    return undefined;
  return v.entries.find(([k]) => k === key)?.[1];
}

/** Serializes a lossless value compactly, byte for byte as serde_json does. */
export function compactLossless(v: LosslessJson): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(compactLossless).join(",")}]`;
  if ("num" in v) return serdeNumber(v.num);
  return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${compactLossless(x)}`).join(",")}}`;
}

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;

/**
 * A JSON number literal as serde_json prints it after parsing: integers that fit u64/i64 exactly, anything
 * else as an f64 in ryu's shortest form (`1.0`, `1e20`, `1.5e-7`, `0.001`).
 */
export function serdeNumber(raw: string): string {
  if (/^-?[0-9]+$/.test(raw)) {
    const big = BigInt(raw);
    if (big >= I64_MIN && big <= U64_MAX && raw !== "-0") return big.toString();
  }
  const x = Number(raw);
  if (!Number.isFinite(x)) throw new JsonTextError(`number out of range: ${raw}`);
  return ryuFormat(x);
}

/** Formats a finite f64 as Rust's ryu crate does (used by serde_json). */
export function ryuFormat(x: number): string {
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const a = Math.abs(x);
  if (a === 0) return `${sign}0.0`;
  const [mant = "", expText = "0"] = a.toExponential().split("e");
  const digits = mant.replace(".", "");
  const len = digits.length;
  const exp = Number(expText);
  const k = exp - (len - 1);
  const kk = len + k;
  let body: string;
  if (k >= 0 && kk <= 16) body = `${digits}${"0".repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) body = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) body = `0.${"0".repeat(-kk)}${digits}`;
  else if (len === 1) body = `${digits}e${kk - 1}`;
  else body = `${digits[0]}.${digits.slice(1)}e${kk - 1}`;
  return sign + body;
}
