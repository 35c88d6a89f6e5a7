/**
 * A model folder's tokenizer (tokenizer.json + tokenizer_config.json, run by @huggingface/tokenizers) and the
 * batching funes feeds to onnxruntime. Padding and truncation keep transformers.js 4.3's behaviour exactly
 * (its `tokenizer(texts, { text_pair, padding: true, truncation: true, max_length })`), so vectors stay
 * equal to the ones funes made with it: a sequence longer than the limit is cut at the end, whatever it
 * holds (a pair loses its passage's tail and its last separator, not a share of each text); shorter ones
 * are padded to the batch's longest on the config's padding side.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** One batch of token ids, row-major [rows, length], as onnxruntime's int64 inputs want them. */
export interface TokenBatch {
  rows: number;
  length: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  /** Segment ids (0 for the first text, 1 for the pair's second), or null when the tokenizer gives none. */
  tokenTypeIds: BigInt64Array | null;
}

/** One text (or pair) tokenized and cut to the limit, not yet padded. */
export interface Encoded {
  ids: number[];
  mask: number[];
  types: number[] | null;
}

/** Texts (and optional second texts of pairs) to a padded, truncated batch. */
export interface BatchTokenizer {
  encode(texts: string[], options: { pairs?: string[]; maxLength: number }): TokenBatch;
  /**
   * Each text on its own, cut to `maxLength` (and the config's limit): `pad` of any group of them equals
   * `encode` of the same texts, so a caller can group texts by token count before padding.
   */
  tokenize(texts: string[], options: { pairs?: string[]; maxLength: number }): Encoded[];
  /** Encoded texts padded to the longest of them, as one batch. */
  pad(encoded: Encoded[]): TokenBatch;
}

/**
 * Tokenizer classes for which transformers.js returns token type ids (its `return_token_type_ids = true`
 * subclasses); for any other class a model that takes them gets zeros.
 */
const WITH_TOKEN_TYPES = new Set([
  "AlbertTokenizer",
  "BertTokenizer",
  "ConvBertTokenizer",
  "DebertaTokenizer",
  "DebertaV2Tokenizer",
  "ElectraTokenizer",
  "HerbertTokenizer",
  "MobileBertTokenizer",
  "RoFormerTokenizer",
  "SqueezeBertTokenizer",
  "XLMTokenizer",
]);

type TokenConfig = Record<string, unknown>;

/** A special token's text from the config: a string or an `AddedToken` object (transformers.js's rule). */
function configToken(config: TokenConfig, ...keys: string[]): string | null {
  for (const key of keys) {
    const item = config[key];
    if (!item) continue;
    if (typeof item === "string") return item;
    if (typeof item === "object" && (item as { __type?: unknown }).__type === "AddedToken")
      return String((item as { content?: unknown }).content);
    throw new Error(`tokenizer_config.json has an unknown ${key}`);
  }
  return null;
}

/** Loads the tokenizer files of the model folder `dir`. */
export async function loadBatchTokenizer(dir: string): Promise<BatchTokenizer> {
  const [{ Tokenizer }, json, config] = await Promise.all([
    import("@huggingface/tokenizers"),
    readFile(join(dir, "tokenizer.json"), "utf8").then((t) => JSON.parse(t) as object),
    readFile(join(dir, "tokenizer_config.json"), "utf8").then((t) => JSON.parse(t) as TokenConfig),
  ]);
  const tokenizer = new Tokenizer(json, config);
  const cls = typeof config.tokenizer_class === "string" ? config.tokenizer_class.replace(/Fast$/, "") : "";
  const withTypes = WITH_TOKEN_TYPES.has(cls);
  const padToken = configToken(config, "pad_token", "eos_token");
  const padId = padToken === null ? undefined : tokenizer.token_to_id(padToken);
  if (padId === undefined) throw new Error("the tokenizer has no padding token");
  const padLeft = config.padding_side === "left";
  const modelMax = typeof config.model_max_length === "number" ? config.model_max_length : Infinity;

  const tokenize = (texts: string[], { pairs, maxLength }: { pairs?: string[]; maxLength: number }) => {
    const limit = Math.min(maxLength, modelMax);
    return texts.map((text, i): Encoded => {
      const e = tokenizer.encode(text, {
        text_pair: pairs?.[i] ?? null,
        add_special_tokens: true,
        return_token_type_ids: withTypes,
      });
      // Cut at the end, whatever the sequence holds (see the header).
      const cut = <T>(xs: T[]) => (xs.length > limit ? xs.slice(0, limit) : xs);
      return {
        ids: cut(e.ids),
        mask: cut(e.attention_mask),
        types: e.token_type_ids ? cut(e.token_type_ids) : null,
      };
    });
  };
  const pad = (enc: Encoded[]): TokenBatch => {
    const length = enc.reduce((m, e) => Math.max(m, e.ids.length), 0);
    const rows = enc.length;
    const inputIds = new BigInt64Array(rows * length);
    const attentionMask = new BigInt64Array(rows * length);
    const types = enc.every((e) => e.types !== null) ? new BigInt64Array(rows * length) : null;
    enc.forEach((e, r) => {
      const n = e.ids.length;
      const start = r * length + (padLeft ? length - n : 0);
      const padAt = padLeft ? r * length : start + n;
      inputIds.fill(BigInt(padId), padAt, padAt + length - n);
      for (let j = 0; j < n; j++) {
        inputIds[start + j] = BigInt(e.ids[j] as number);
        attentionMask[start + j] = BigInt(e.mask[j] as number);
        if (types !== null) types[start + j] = BigInt((e.types as number[])[j] as number);
      }
    });
    return { rows, length, inputIds, attentionMask, tokenTypeIds: types };
  };
  return { tokenize, pad, encode: (texts, options) => pad(tokenize(texts, options)) };
}
