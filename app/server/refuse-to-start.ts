import { createServer } from "node:net";
import { type AppMode, ConfigError, parseModeArgument } from "~/config.server";

/** Stops the process before it serves anything, naming every problem and where the documentation explains it. */
export function refuseToStart(heading: string, problems: string[], reference: string): never {
  console.error(`${heading}\n${problems.map((problem) => `  - ${problem}`).join("\n")}\nSee ${reference}.`);
  process.exit(1);
}

/** Another program holds the server's port, most often a second `npm run dev`: what to do, not a stack trace. */
export function refusePortInUse(address: { host: string; port: number }): never {
  refuseToStart(
    `Port ${address.port} on ${address.host} is already in use (EADDRINUSE):`,
    ["stop the program listening there, or start this one with PORT set to another port"],
    "the README's configuration table",
  );
}

/** Whether another program listens at the address: a bind tried there and given back at once. */
export async function portInUse(address: { host: string; port: number }): Promise<boolean> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("listening", resolve);
      probe.once("error", reject);
      probe.listen(address.port, address.host);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") return true;
    throw error;
  }
  await new Promise((resolve) => probe.close(resolve));
  return false;
}

/** The mode named by `--mode=` on the command line (strict: no default), or the process refuses to start. */
export function modeFromArguments(): AppMode {
  try {
    return parseModeArgument(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    refuseToStart("The server was not told which mode to run in:", error.problems, "the README's Quick start");
  }
}
