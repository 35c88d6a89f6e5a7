/**
 * chunk: blocks to stored text. Rendering, code-point splitting with overlap, reassembly, chunk ids and
 * tiers, and the `data:` payload elision applied before any of it. Knows the Turn/Block model; knows
 * nothing of Lance, the Hub, or where transcripts live.
 */
export { ALL_TIERS, type Chunk, type ChunkOptions, chunkTurns, injectedChunkIds } from "./chunks.js";
export { elideDataUris } from "./elide.js";
export { chunkId } from "./ids.js";
export { splitText, stitch, type Tier } from "./split.js";
