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

/** The fields of one message, in order, unknown ones included; a damaged message throws. */
export function pbDecode(buf: Uint8Array): PbField[] {
  const out: PbField[] = [];
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
    if (wire === 0) {
      const at = i;
      const num = varint();
      out.push({ no, wire, num, bytes: buf.subarray(at, i) });
    } else if (wire === 1 || wire === 5 || wire === 2) {
      const len = wire === 1 ? 8 : wire === 5 ? 4 : varint();
      if (i + len > buf.length) throw new Error("truncated field");
      out.push({ no, wire, num: len, bytes: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
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
