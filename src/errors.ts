/** Base of every error po-node reports to a person: printed as one line with a hint, exit code 2. */
export class PoNodeError extends Error {
  readonly hint: string | undefined;
  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/** The configuration file or flags are wrong. */
export class ConfigError extends PoNodeError {}

/** The inputs cannot be read at all (missing folder, nothing matched). */
export class InputError extends PoNodeError {}

/** The output folder cannot be written or would be unsafe to replace. */
export class OutputError extends PoNodeError {}
