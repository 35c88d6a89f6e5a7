/**
 * card: the dataset card of a published memory. Stats in, README text out, and the merge that rewrites only
 * funes's stats block. Pure: knows nothing of the Hub, Lance or commands.
 */
export { type CardMerge, type CardStats, mergeCard } from "./card.js";
