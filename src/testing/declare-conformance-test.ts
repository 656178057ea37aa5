/** A test body as `it` takes it. */
export type ConformanceTest = () => Promise<void>;

/** What one test of a conformance suite is run on: how it is made, and freed. */
export interface ConformanceSubject<Made> {
  make: () => Made | Promise<Made>;
  free: (made: Made) => Promise<void> | void;
}

/**
 * Declares one test of a conformance suite through `it`: the test makes
 * what it checks (an empty store, queue or log of its own), runs `body` on
 * it, and frees it on every way out.
 */
export function declareConformanceTest<Made>(
  it: (name: string, body: ConformanceTest) => unknown,
  name: string,
  subject: ConformanceSubject<Made>,
  body: (made: Made) => Promise<void>,
): unknown {
  return it(name, async () => {
    const made = await subject.make();
    try {
      await body(made);
    } finally {
      await subject.free(made);
    }
  });
}
