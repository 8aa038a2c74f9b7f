import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'

type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>
type Method = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'

// pino's standard levels; a logger on a level not listed here gets its child at once.
const METHOD_LEVELS: Readonly<Record<Method, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
}
const LEVELS: ReadonlyMap<string, number> = new Map([
  ...Object.entries(METHOD_LEVELS),
  ['silent', Number.POSITIVE_INFINITY],
])

/**
 * A request's logger that makes its pino child (with the request id bound) only when a line is written at a level
 * the parent has enabled. Making a child serializes its bindings: at `warn`, every request paid for it and wrote
 * nothing. What is written, and how, is what the child writes.
 */
class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  #real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options)
    return this.#child
  }

  #write(method: Method, args: unknown[]): void {
    if (this.#child === undefined) {
      const threshold = LEVELS.get(this.parent.level)
      if (threshold !== undefined && METHOD_LEVELS[method] < threshold) return
    }
    const real = this.#real()
    Reflect.apply(real[method], real, args)
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level
  }

  set level(level: string) {
    this.#real().level = level
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args)
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args)
  }

  info(...args: unknown[]): void {
    this.#write('info', args)
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args)
  }

  error(...args: unknown[]): void {
    this.#write('error', args)
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args)
  }

  silent(): void {
    // Writes nothing, as pino's.
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options)
  }
}

/** Fastify's `childLoggerFactory`: a request logger that costs nothing until it writes. */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => {
  // A route's own level or serializers change how the child writes: then it is made at once, as Fastify would.
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options)
  return new RequestLogger(logger, bindings, options)
}
