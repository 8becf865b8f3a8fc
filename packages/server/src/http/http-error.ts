/** One entry of a 422 body, in the shape of the preview spec's HTTPValidationError. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An error raised by the server itself (not by a library) that carries its HTTP status. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A request whose path, query, headers or body do not match the route's schema. */
export class RequestValidationError extends Error {
  override name = 'RequestValidationError';
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}
