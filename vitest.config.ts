import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts", "tests/contract/**/*.test.ts"],
    environment: "node",
    // A migrated PGlite that test servers and files copy instead of each creating a cluster (support/pglite-template.ts).
    globalSetup: ["tests/support/vitest-global-setup.ts"],
    testTimeout: 30_000,
    // beforeAll hooks start servers, which can take over a minute on a loaded 2-core CI machine.
    hookTimeout: 180_000,
    // expect.poll waits for something a test can observe (a mail, a row, a log line); on a loaded machine that can
    // take seconds, where the default gives up after one.
    expect: { poll: { timeout: 20_000 } },
    // Integration tests each start their own PGlite or stand-in, and spend much of their time waiting on them (a
    // server's start, a mail, a token's next second): on two cores a third worker fills that time, a fourth mostly
    // adds contention.
    maxWorkers: 3,
    // A worker runs its files one after another in one module graph, so the app's modules are imported once per
    // worker rather than once per file (a fifth of the run). Files keep their state in their own servers and
    // databases; what the app keeps per process is keyed by what it is for (the JWKS cache by its pool's URL).
    isolate: false,
  },
});
