import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type DatabaseHandle, isDatabaseReachable, openDatabase } from "~db/client.server";
import { memberProfiles } from "~db/schema";
import { makeTempDir } from "../../support/temp-dir";

// PGlite by default; `.ci/run` runs this file again with TEST_DATABASE_URL pointing at PostgreSQL 15.
const temp = makeTempDir("db");
let handle: DatabaseHandle;

beforeAll(async () => {
  handle = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, dataDir: temp.dir });
  await handle.migrate();
});

afterAll(async () => {
  await handle.close();
  temp.remove();
});

test("migrations apply again without error (every start runs them)", async () => {
  await handle.migrate();
  expect(await isDatabaseReachable(handle.db)).toBe(true);
});

test("a member profile is stored and read back by its Cognito sub", async () => {
  const sub = crypto.randomUUID();
  await handle.db.insert(memberProfiles).values({
    sub,
    familyName: "山田",
    givenName: "太郎",
    birthYear: 1980,
    preferredLanguage: "ja",
    questionnaire: { q1: "magazine", q2: ["price"] },
    referrerService: "data",
  });
  const [row] = await handle.db.select().from(memberProfiles).where(eq(memberProfiles.sub, sub));
  expect(row).toMatchObject({ familyName: "山田", givenName: "太郎", birthYear: 1980, referrerService: "data" });
  expect(row?.questionnaire).toEqual({ q1: "magazine", q2: ["price"] });
  expect(row?.cancelledAt).toBeNull();
  await expect(handle.db.insert(memberProfiles).values({ sub })).rejects.toThrow();
});

test(`runs on ${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"}`, () => {
  expect(handle.kind).toBe(process.env.TEST_DATABASE_URL ? "postgres" : "pglite");
});
