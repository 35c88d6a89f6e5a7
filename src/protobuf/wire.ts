/**
 * Just enough protobuf to read Lance manifests and rewrite an ONNX file: a message's fields in order, kept
 * as byte views (a 130 MB model is never copied field by field), and an encoder for the fields funes
 * writes back.
 */

/**
 * One field: its number, wire type, the varint value (wire 0; exact below 2^53, so negative int64s are not)
 * and its bytes: the payload of wires 1, 2 and 5, the varint's own encoding for wire 0 (written back as is).
 */
export interface PbField {
  no: number;
  wire: 0 | 1 | 2 | 5;
  num: number;
  bytes: Uint8Array;
}

/** A message broke one of the {@link PbLimits} it was read under: too many fields, unknown ones, or too deep. */
export class PbLimitError extends Error {}

/**
 * Fields and depth a whole file's messages may take together (a Lance manifest and every message nested in
 * it): each decode under it draws from one count, and a message nested deeper than `maxDepth` is refused. A
 * file of a few MiB can otherwise hold millions of two-byte fields, each an object once read.
 */
export class PbBudget {
  private left: number;
  constructor(
    readonly maxFields: number,
    readonly maxDepth: number,
  ) {
    this.left = maxFields;
  }

  /** Counts `n` more fields; throws once the file holds more than `maxFields`. */
  take(n: number): void {
    this.left -= n;
    if (this.left < 0) throw new PbLimitError(`holds more than ${this.maxFields} fields in all`);
  }
}

/** What one message may hold; a message over a limit throws PbLimitError before more is read. */
export interface PbLimits {
  /** Most fields the message holds, known or not. */
  maxFields: number;
  /**
   * The field numbers the caller reads: any other is skipped (never returned, never held) and counted
   * against `maxUnknown`. Without it every field is returned.
   */
  known?: ReadonlySet<number>;
  /** Most fields outside `known` (a newer writer adds a few; padding adds millions). */
  maxUnknown?: number;
  /** The file-wide count this message draws from, and how deep it sits (0: the file's top message). */
  budget?: PbBudget;
  depth?: number;
}

/**
 * The fields of one message, in order (unknown ones included unless `limits.known` says which to keep); a
 * damaged message throws, and one over `limits` throws PbLimitError.
 */
export function pbDecode(buf: Uint8Array, limits?: PbLimits): PbField[] {
  const out: PbField[] = [];
  if (limits?.budget !== undefined && (limits.depth ?? 0) > limits.budget.maxDepth)
    throw new PbLimitError(`nests messages more than ${limits.budget.maxDepth} deep`);
  const maxFields = limits?.maxFields ?? Number.POSITIVE_INFINITY;
  const maxUnknown = limits?.maxUnknown ?? Number.POSITIVE_INFINITY;
  const known = limits?.known;
  let fields = 0;
  let unknown = 0;
  let i = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (let n = 0; n < 10; n++) {
      if (i >= buf.length) throw new Error("truncated varint");
      const b = buf[i++] as number;
      v += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return v;
      mul *= 128;
    }
    throw new Error("varint too long");
  };
  while (i < buf.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    const wire = key % 8;
    if (++fields > maxFields) throw new PbLimitError(`a message holds more than ${maxFields} fields`);
    const keep = known === undefined || known.has(no);
    if (!keep && ++unknown > maxUnknown)
      throw new PbLimitError(`a message holds more than ${maxUnknown} fields of unknown numbers`);
    if (wire === 0) {
      const at = i;
      const num = varint();
      if (keep) out.push({ no, wire, num, bytes: buf.subarray(at, i) });
    } else if (wire === 1 || wire === 5 || wire === 2) {
      const len = wire === 1 ? 8 : wire === 5 ? 4 : varint();
      if (i + len > buf.length) throw new Error("truncated field");
      if (keep) out.push({ no, wire, num: len, bytes: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  limits?.budget?.take(fields);
  return out;
}

/** The varints of a packed repeated field (or one unpacked value). */
export function pbVarints(f: PbField): number[] {
  if (f.wire === 0) return [f.num];
  return pbDecodeVarints(f.bytes);
}

function pbDecodeVarints(buf: Uint8Array): number[] {
  const out: number[] = [];
  let v = 0;
  let mul = 1;
  for (const b of buf) {
    v += (b & 0x7f) * mul;
    mul *= 128;
    if ((b & 0x80) === 0) {
      out.push(v);
      v = 0;
      mul = 1;
    }
  }
  return out;
}

/** A varint field as a signed 64-bit integer (a negative int64, such as axis -1, takes ten bytes). */
export function pbSigned(f: PbField): number {
  return signedVarint(f.bytes);
}

/** The signed 64-bit integers of a packed repeated field (or of one unpacked value). */
export function pbSignedVarints(f: PbField): number[] {
  if (f.wire === 0) return [pbSigned(f)];
  const out: number[] = [];
  let at = 0;
  for (let i = 0; i < f.bytes.length; i++)
    if (((f.bytes[i] as number) & 0x80) === 0) {
      out.push(signedVarint(f.bytes.subarray(at, i + 1)));
      at = i + 1;
    }
  return out;
}

function signedVarint(bytes: Uint8Array): number {
  let v = 0n;
  let shift = 0n;
  for (const b of bytes) {
    v |= BigInt(b & 0x7f) << shift;
    shift += 7n;
  }
  return Number(BigInt.asIntN(64, v));
}

/**
 * A varint field as an unsigned 64-bit integer, exactly: `num` rounds past 2^53, and Lance's ids (a deletion
 * file's, say) use all 64 bits.
 */
export function pbUnsigned(f: PbField): bigint {
  let v = 0n;
  let shift = 0n;
  for (const b of f.bytes) {
    v |= BigInt(b & 0x7f) << shift;
    shift += 7n;
  }
  return BigInt.asUintN(64, v);
}

/** A field's bytes as UTF-8 text. */
export const pbText = (f: PbField): string => Buffer.from(f.bytes).toString("utf8");

function varintBytes(v: number): number[] {
  if (v < 0) throw new Error("negative varint");
  const out: number[] = [];
  let x = v;
  while (x >= 128) {
    out.push((x % 128) | 0x80);
    x = Math.floor(x / 128);
  }
  out.push(x);
  return out;
}

/** Builds one message from fields appended in order. */
export class PbWriter {
  private readonly parts: Uint8Array[] = [];

  /** A varint field (ints, enums). */
  varint(no: number, v: number): this {
    this.parts.push(Uint8Array.from([...varintBytes(no * 8), ...varintBytes(v)]));
    return this;
  }

  /** A length-delimited field: bytes, a string, or a nested message. */
  bytes(no: number, data: Uint8Array | string): this {
    const b = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    this.parts.push(Uint8Array.from([...varintBytes(no * 8 + 2), ...varintBytes(b.length)]), b);
    return this;
  }

  /** A 32-bit float field. */
  float(no: number, v: number): this {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.parts.push(Uint8Array.from(varintBytes(no * 8 + 5)), b);
    return this;
  }

  /** A decoded field written back as it was. */
  field(f: PbField): this {
    if (f.wire === 2) return this.bytes(f.no, f.bytes);
    this.parts.push(Uint8Array.from(varintBytes(f.no * 8 + f.wire)), f.bytes);
    return this;
  }

  /** The message's bytes. */
  finish(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}
