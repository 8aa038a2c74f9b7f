import { bytesText } from '../text/text.js'

/** The message of a 413: the route's body limit (1 MiB, or its own) in words. */
export function bodyTooLarge(limitBytes: number): string {
  return `Request body is larger than ${bytesText(limitBytes)}.`
}

/** A client error answered as `{"error": message}`, and `fields` beside it where a client must tell errors apart. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly fields: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'HttpError'
  }
}

export class NotFoundError extends HttpError {
  constructor(what: string) {
    super(404, `${what} not found.`)
  }
}

export class ForbiddenError extends HttpError {
  constructor(message = 'You do not have permission to perform this action.') {
    super(403, message)
  }
}

export class UnauthorizedError extends HttpError {
  constructor(
    message = 'Missing or invalid API key: authenticate with HTTP Basic, the key as user name and an empty password.',
  ) {
    super(401, message, { 'www-authenticate': 'Basic realm="api"' })
  }
}

/** Too many requests in a rate-limit window: 429 with Close's body (`error` is an object) and `Retry-After`. */
export class RateLimitedError extends Error {
  constructor(
    readonly body: { message: string } & Record<string, string | number>,
    readonly retryAfterSeconds: number,
  ) {
    super(body.message)
    this.name = 'RateLimitedError'
  }
}

/** A validation failure answered as `{"errors": [...], "field-errors": {...}}` with status 400. */
export class ValidationError extends Error {
  constructor(
    readonly fieldErrors: Record<string, string>,
    readonly errors: string[] = [],
  ) {
    super(
      Object.entries(fieldErrors)
        .map(([field, message]) => `${field}: ${message}`)
        .concat(errors)
        .join('; '),
    )
    this.name = 'ValidationError'
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: message })
  }
}
