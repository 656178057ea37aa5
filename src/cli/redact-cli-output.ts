import { SecretRegistry } from "../internal/redact.js";
import type { CliIo } from "./cli-io.js";

/** Variables of the environment that hold secrets: keys and tokens. */
const secretVariablePattern = /^SWITCHYARD_\w*(?:_TOKEN|_KEY)$/;

/**
 * The command's streams with every secret of its environment (the reasoner
 * key, the service tokens, `SWITCHYARD_STATE_KEY`) removed from what it
 * writes, besides the redaction patterns: whatever a service echoes into
 * an error, the terminal and `--json` never show a secret.
 */
export function redactCliOutput(io: CliIo): CliIo {
  const secrets = new SecretRegistry();
  for (const [name, value] of Object.entries(io.env)) {
    if (secretVariablePattern.test(name)) secrets.add(value?.trim());
  }
  return {
    ...io,
    stdout: redactingStream(io.stdout, secrets),
    stderr: redactingStream(io.stderr, secrets),
  };
}

function redactingStream<Stream extends NodeJS.WritableStream>(
  stream: Stream,
  secrets: SecretRegistry,
): Stream {
  return new Proxy(stream, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === "write" && typeof value === "function") {
        return (chunk: unknown, ...rest: unknown[]) =>
          (value as (...inner: unknown[]) => boolean).call(
            target,
            typeof chunk === "string"
              ? secrets.redactText(chunk)
              : chunk instanceof Uint8Array
                ? secrets.redactText(Buffer.from(chunk).toString("utf8"))
                : chunk,
            ...rest,
          );
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
