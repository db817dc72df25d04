import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { rateLimitWindows } from "~db/schema";
import { createLogger, runWithRequestId } from "~/integrations/logger.server";
import { useTestDatabase } from "../../support/test-database";

/**
 * What the app's logger writes for real failing queries (PGlite, or PostgreSQL with TEST_DATABASE_URL): the
 * values a statement was given (e-mails, keys, tokens) appear nowhere in the line.
 */
const database = useTestDatabase("log-redaction");

/** The app's logger configuration, writing its JSON lines into an array. */
function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger(destination), lines };
}

async function failureOf(query: Promise<unknown>): Promise<unknown> {
  try {
    await query;
  } catch (error) {
    return error;
  }
  throw new Error("the query was expected to fail");
}

const secretAddress = () => `secret-${crypto.randomUUID().slice(0, 8)}@example.jp`;

test("a query that fails on a bad value logs no parameter: not in params, message, stack nor cause", async () => {
  const secret = secretAddress();
  const error = await failureOf(database().db.execute(sql`select cast(${secret} as uuid)`));
  // The raw error does carry it: that is what must not reach the log.
  expect(JSON.stringify({ message: (error as Error).message, stack: (error as Error).stack })).toContain(secret);
  const { logger, lines } = capturedLogger();
  logger.error({ err: error }, "database query failed");
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain(secret);
  const line = JSON.parse(lines[0]!);
  // What finding the fault needs stays: the kind of error and the statement with its placeholders.
  expect(line.err.message).toContain("select cast($1 as uuid)");
  expect(line.err.message).toContain("invalid input syntax for type uuid");
  expect(line.err.stack).toMatch(/\n\s+at /);
});

test("a unique violation logs neither the inserted values nor PostgreSQL's detail quoting them", async () => {
  const secret = secretAddress();
  const row = { key: secret, windowStart: new Date(0), expiresAt: new Date(0), count: 1 };
  await database().db.insert(rateLimitWindows).values(row);
  const error = await failureOf(database().db.insert(rateLimitWindows).values(row));
  const { logger, lines } = capturedLogger();
  logger.warn({ err: error }, "could not store a rate-limit window");
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain(secret);
  expect(JSON.parse(lines[0]!).err.message).toMatch(/duplicate key value violates unique constraint/);
});

test("a warning logged inside a request carries its id, and an explicit id is not overwritten", () => {
  const { logger, lines } = capturedLogger();
  runWithRequestId("request-1", () => logger.warn("inside"));
  logger.warn("outside");
  runWithRequestId("request-2", () => logger.error({ requestId: "given" }, "explicit"));
  expect(lines.map((line) => JSON.parse(line).requestId)).toEqual(["request-1", undefined, "given"]);
});

test("a request's id follows its awaits, and two requests at once never mix their ids", async () => {
  const { logger, lines } = capturedLogger();
  const work = (id: string, delayMs: number) =>
    runWithRequestId(id, async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      logger.warn({ expected: id }, "after an await");
    });
  await Promise.all([work("slow", 20), work("fast", 1)]);
  for (const line of lines.map((text) => JSON.parse(text))) expect(line.requestId).toBe(line.expected);
  expect(lines).toHaveLength(2);
});
