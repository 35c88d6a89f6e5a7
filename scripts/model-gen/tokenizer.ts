/**
 * WordPiece `tokenizer.json` + `tokenizer_config.json` in the Hugging Face tokenizers format, BERT-style
 * (lowercasing normalizer, BERT pre-tokenizer, [CLS] A [SEP] (B [SEP]) template).
 */

/** Special tokens, ids 0–4. */
export const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] as const;

const CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";
const PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/** A vocab: specials, single characters and their `##` pieces, then `words`, padded to `size` if given. */
export function buildVocab(words: string[], size?: number): string[] {
  const vocab: string[] = [...SPECIALS];
  const seen = new Set(vocab);
  const add = (t: string) => {
    if (!seen.has(t)) {
      seen.add(t);
      vocab.push(t);
    }
  };
  for (const c of CHARS + PUNCT) add(c);
  for (const c of CHARS) add(`##${c}`);
  for (const w of words) if (size === undefined || vocab.length < size) add(w);
  if (size !== undefined) for (let i = 0; vocab.length < size; i++) add(`[unused${i}]`);
  return vocab;
}

/** The tokenizer.json and tokenizer_config.json texts for a vocab. */
export function tokenizerFiles(vocab: string[], maxLength = 512): { tokenizer: string; config: string } {
  const id = (t: string) => vocab.indexOf(t);
  const special = (t: string, typeId: number) => ({ SpecialToken: { id: t, type_id: typeId } });
  const seq = (s: "A" | "B", typeId: number) => ({ Sequence: { id: s, type_id: typeId } });
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content) => ({
      id: id(content),
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
      pair: [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [id("[CLS]")], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [id("[SEP]")], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  };
  const config = {
    tokenizer_class: "BertTokenizer",
    do_lower_case: true,
    model_max_length: maxLength,
    cls_token: "[CLS]",
    sep_token: "[SEP]",
    pad_token: "[PAD]",
    unk_token: "[UNK]",
    mask_token: "[MASK]",
  };
  return { tokenizer: JSON.stringify(tokenizer), config: JSON.stringify(config, null, 2) };
}
