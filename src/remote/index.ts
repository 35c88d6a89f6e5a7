/**
 * remote: Hub transport over @huggingface/hub. Dataset URIs, the head probe (the one place a remote's state
 * is decided from HTTP answers), tree listings and cached downloads. Knows the Hub; knows nothing of Lance.
 */
export { type HubClient, hubClient, isUnreachable } from "./access.js";
export { commitFiles, type NewFile, type UploadProgress } from "./commit-files.js";
export { createPrivateDataset } from "./create-repo.js";
export { applyNetworkEnv, type NetworkEnv, networkEnv } from "./dispatcher.js";
export { openDownload } from "./fetch-file.js";
export {
  HubCommitUnreachableError,
  HubConflictError,
  type HubFailure,
  HubReadOnlyError,
  hubFailure,
} from "./hub-failure.js";
export { type HubLocation, HubUriError, lancePath, parseHubUri } from "./hub-uri.js";
export { ListingTooLongError, listTree, type RemoteFile } from "./list-tree.js";
export { modelHub } from "./model-files.js";
export { readRepoText } from "./read-text.js";
export { fetchRepoHead, isModelRepo, type RepoHead } from "./repo-head.js";
export { superSquash } from "./super-squash.js";
export { isCommitSha, UnsafeHubAnswerError } from "./validate.js";
export { fetchIdentity, type HubIdentity } from "./whoami.js";
