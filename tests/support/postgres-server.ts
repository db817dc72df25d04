import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { findFreePort } from "./stand-ins/cognito-stand-in";
import { makeTempDir } from "./temp-dir";

/** The newest local PostgreSQL server binaries (Debian's postgresql package), or null when none is installed. */
export function localPostgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((name) => existsSync(path.join(root, name, "bin", "initdb")));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : null;
}

/**
 * A PostgreSQL for one test file: TEST_DATABASE_URL when set (CI), else a throwaway cluster (initdb in a temp dir,
 * as .ci/run does; as the postgres user when running as root). Null when neither is available.
 */
export async function startTestPostgres(): Promise<{ url: string; stop(): Promise<void> } | null> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => {} };
  const bin = localPostgresBin();
  if (!bin) return null;
  const temp = makeTempDir("postgres");
  chmodSync(temp.dir, 0o777);
  const port = await findFreePort();
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) =>
    asRoot
      ? execFileSync("su", ["postgres", "-s", "/bin/sh", "-c", [command, ...args].map((arg) => `'${arg}'`).join(" ")], {
          stdio: "pipe",
        })
      : execFileSync(command, args, { stdio: "pipe" });
  const data = path.join(temp.dir, "data");
  run(path.join(bin, "initdb"), ["-A", "trust", "-U", "postgres", "-D", data]);
  const options = `-p ${port} -k ${temp.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  run(path.join(bin, "pg_ctl"), ["-D", data, "-l", path.join(temp.dir, "log"), "-w", "-o", options, "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      run(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]);
      temp.remove();
    },
  };
}

/**
 * A TCP proxy in front of the database that the test can cut and restore: `down()` drops every connection and
 * stops listening (the app sees refused connections), `up()` listens on the same port again.
 */
export async function startCuttableProxy(target: { host: string; port: number }) {
  const port = await findFreePort();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  await listen();
  return {
    port,
    async down() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    up: listen,
    async stop() {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
