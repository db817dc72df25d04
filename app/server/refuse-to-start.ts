import { type AppMode, ConfigError, parseModeArgument } from "~/config.server";

/** Stops the process before it serves anything, naming every problem and where the documentation explains it. */
export function refuseToStart(heading: string, problems: string[], reference: string): never {
  console.error(`${heading}\n${problems.map((problem) => `  - ${problem}`).join("\n")}\nSee ${reference}.`);
  process.exit(1);
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
