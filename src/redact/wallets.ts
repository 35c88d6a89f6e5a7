/**
 * Wallet and signing keys known by their encoding's own proof: a WIF key's base58check checksum, a
 * Solana keypair's second half being the Ed25519 public key of its first. A run that passes is a key whatever
 * surrounds it (no placeholder or hash has a valid checksum by chance), so these are checked on every run
 * the scanner already walks (unwrap.ts), with no keyword. Formats: Bitcoin's base58check and WIF (a version
 * byte, 32 bytes, 0x01 when compressed), Solana's 64-byte keypair (seed ‖ public key).
 */
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const B58_INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < B58.length; i++) B58_INDEX[B58.charCodeAt(i)] = i;

/** The bytes of a base58 string (Bitcoin's alphabet), or null when it holds another character. */
export function base58Decode(s: string): Uint8Array | null {
  let n = 0n;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? (B58_INDEX[c] as number) : -1;
    if (v < 0) return null;
    n = n * 58n + BigInt(v);
  }
  const out: number[] = [];
  while (n > 0n) {
    out.push(Number(n & 255n));
    n >>= 8n;
  }
  for (let i = 0; i < s.length && s[i] === "1"; i++) out.push(0);
  return Uint8Array.from(out.reverse());
}

function sha256(b: Uint8Array): Buffer {
  return createHash("sha256").update(b).digest();
}

/**
 * True when `s` is a WIF private key: base58check of a version byte (0x80 Bitcoin, 0xef testnet, 0xb0
 * Litecoin, 0x9e Dogecoin… any: each coin has its own), 32 bytes, and 0x01 when compressed.
 */
export function isWif(s: string): boolean {
  if (s.length !== 51 && s.length !== 52) return false;
  const b = base58Decode(s);
  if (b === null || (b.length !== 37 && b.length !== 38)) return false;
  if (b.length === 38 && b[33] !== 1) return false;
  const check = sha256(sha256(b.subarray(0, b.length - 4)));
  for (let i = 0; i < 4; i++) if (check[i] !== b[b.length - 4 + i]) return false;
  return true;
}

/** PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows. */
const ED25519_PKCS8 = Buffer.from("302e020100300506032b657004220420", "hex");

/** True when `b` (64 bytes) is an Ed25519 keypair as Solana writes it: seed, then its public key. */
export function isEd25519Pair(b: Uint8Array): boolean {
  if (b.length !== 64) return false;
  try {
    const key = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8, b.subarray(0, 32)]),
      format: "der",
      type: "pkcs8",
    });
    const spki = createPublicKey(key).export({ format: "der", type: "spki" });
    return Buffer.compare(spki.subarray(spki.length - 32), Buffer.from(b.subarray(32))) === 0;
  } catch {
    return false;
  }
}

/**
 * The rule id of a run (letters and digits, as the scanner walks them) that proves itself a key: a WIF key
 * (51 or 52 base58 characters) or a Solana keypair (86 to 88: 64 bytes); null for anything else. Cheap for
 * the other runs: their length rules them out before any decoding.
 */
export function provenKey(run: string): string | null {
  const n = run.length;
  if ((n === 51 || n === 52) && isWif(run)) return "bitcoin-wif";
  if (n >= 86 && n <= 88) {
    const b = base58Decode(run);
    if (b !== null && isEd25519Pair(b)) return "solana-keypair";
  }
  return null;
}
