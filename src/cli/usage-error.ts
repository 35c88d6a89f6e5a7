/**
 * Bad usage found before a command's module is loaded (an unknown command or option): reported as a
 * "bad_input" failure by cli/error-policy.ts. Its own file so that app.ts can throw it without loading the
 * commands layer.
 */
export class UsageError extends Error {}
