/** What {@link measureInterleaved} recorded for one contender, one entry per timed run. */
export interface Samples {
  /** Wall time of each run, in milliseconds. */
  wallMs: number[];
  /** CPU time (user + system) this process spent in each run, in milliseconds. */
  cpuMs: number[];
}

/** A contender whose runs need untimed set-up first (e.g. records to delete). */
export interface PreparedContender<Prepared> {
  prepare(): Promise<Prepared>;
  run(prepared: Prepared): Promise<unknown>;
}

/** A function timed as a whole, or a contender with an untimed `prepare`. */
// biome-ignore lint/suspicious/noExplicitAny: each contender prepares its own kind of value.
export type Contender = (() => Promise<unknown>) | PreparedContender<any>;

/** How many runs to make of each contender. */
export interface InterleaveOptions {
  /** Untimed runs of each contender first, for the JIT and the connection pool. */
  warmup: number;
  /** Timed runs of each contender. */
  runs: number;
}

/**
 * Runs each contender `warmup` times, then `runs` timed times in turns
 * (A B, B A, A B, ...), so that drift in the machine's speed, the
 * simulator's state or the heap touches each contender alike.
 */
export async function measureInterleaved(
  contenders: readonly Contender[],
  options: InterleaveOptions,
): Promise<Samples[]> {
  const runOnce = async (contender: Contender): Promise<{ wall: number; cpu: number }> => {
    const run = typeof contender === "function" ? contender : contender.run.bind(contender);
    const prepared = typeof contender === "function" ? undefined : await contender.prepare();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await run(prepared);
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    return { wall, cpu: (cpu.user + cpu.system) / 1000 };
  };
  for (let round = 0; round < options.warmup; round++) {
    for (const contender of contenders) await runOnce(contender);
  }
  const samples = contenders.map((): Samples => ({ wallMs: [], cpuMs: [] }));
  const order = contenders.map((_, index) => index);
  for (let round = 0; round < options.runs; round++) {
    const turn = round % 2 === 0 ? order : [...order].reverse();
    for (const index of turn) {
      const { wall, cpu } = await runOnce(contenders[index]!);
      samples[index]!.wallMs.push(wall);
      samples[index]!.cpuMs.push(cpu);
    }
  }
  return samples;
}
