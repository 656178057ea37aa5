/**
 * The events as `text/event-stream`, one `data:` line of JSON each, as
 * they come. The client going away (the request's signal, or the body
 * cancelled) fires the signal `run` is given and closes the generator.
 */
export function eventStreamResponse<Event>(
  run: (signal: AbortSignal) => AsyncGenerator<Event>,
  requestSignal: AbortSignal,
): Response {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error("the AG-UI client closed the connection"));
  requestSignal.addEventListener("abort", stop, { once: true });
  const encoder = new TextEncoder();
  const events = run(controller.signal);
  const body = new ReadableStream<Uint8Array>({
    async pull(stream) {
      const next = await events.next();
      if (next.done) {
        requestSignal.removeEventListener("abort", stop);
        stream.close();
        return;
      }
      stream.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
    },
    async cancel() {
      requestSignal.removeEventListener("abort", stop);
      stop();
      await events.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}
