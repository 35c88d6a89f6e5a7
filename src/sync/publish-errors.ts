/**
 * How a publish (push, forget on the Hub, curate) fails where its caller plans around it.
 */

/** The remote could not be reached or named. */
export class PublishUnreachableError extends Error {}

/** Others kept publishing: every attempt found the head moved. */
export class PublishConflictError extends Error {
  constructor(readonly attempts: number) {
    super(`the remote kept moving: ${attempts} attempts each found a newer commit`);
  }
}
