import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/client.server";
import { legacyCredentials, memberProfiles } from "../../db/schema";
import { importLegacyRows, parseLegacyCsv } from "~/domain/legacy-accounts.server";
import { signIn } from "~/domain/sign-in.server";
import { IdentityError } from "~/integrations/cognito/cognito-errors.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { type EmbeddedStack, startEmbeddedStack } from "~/server/embedded/embedded-stack";
import { makeTempDir } from "../support/temp-dir";

// The real parts: the Cognito stand-in over HTTP through the AWS SDK, and PGlite (or PostgreSQL in CI).
const temp = makeTempDir("legacy");
let stack: EmbeddedStack;
let handle: DatabaseHandle;

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  handle = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, dataDir: temp.dir });
  await handle.migrate();
  await handle.db.delete(legacyCredentials);
});

afterAll(async () => {
  await handle.close();
  await stack.stop();
  temp.remove();
});

function deps() {
  return {
    db: handle.db,
    identity: createIdentityProvider({
      region: stack.env.COGNITO_REGION!,
      endpoint: stack.env.COGNITO_ENDPOINT,
      userPoolId: stack.env.COGNITO_USER_POOL_ID!,
      clientId: stack.env.COGNITO_CLIENT_ID!,
    }),
    deviceLimit: 3,
    secrets: ["s".repeat(32)],
  };
}

const signInAs = (email: string, password: string) =>
  signIn(deps(), { email, password, deviceKey: crypto.randomUUID(), userAgent: null });

test("the import reports bad rows by line and field and loads the good ones, and can be run again", async () => {
  const csv = `${readFileSync("tests/fixtures/legacy-accounts.csv", "utf8")}not-an-email,$2b$10$short,,,,,,,,\n`;
  const { rows, errors } = parseLegacyCsv(csv);
  expect(rows.map((row) => row.email)).toEqual(["legacy-js-on@example.jp", "legacy-js-off@example.jp"]);
  expect(errors.map((error) => `${error.line}:${error.field}`)).toEqual(["4:email", "4:password_hash"]);
  expect(await importLegacyRows(handle.db, rows)).toBe(2);
  expect(await importLegacyRows(handle.db, rows)).toBe(2);
  expect(await handle.db.select().from(legacyCredentials)).toHaveLength(2);
});

test("a legacy member's first sign-in moves the account to Cognito with the same password and profile", async () => {
  const wrong = await signInAs("legacy-js-on@example.jp", "not-the-old-password").catch((error: unknown) => error);
  expect(wrong).toBeInstanceOf(IdentityError);
  expect((wrong as IdentityError).messageKey).toBe("loginFailed");

  const first = await signInAs("Legacy-JS-On@example.jp", "old-password-2019");
  expect(first.kind).toBe("active");
  const [legacy] = await handle.db
    .select()
    .from(legacyCredentials)
    .where(eq(legacyCredentials.email, "legacy-js-on@example.jp"));
  expect(legacy?.migratedAt).toBeInstanceOf(Date);
  const [profile] = await handle.db.select().from(memberProfiles).where(eq(memberProfiles.sub, legacy!.migratedSub!));
  expect(profile).toMatchObject({ familyName: "旧", givenName: "会員", birthYear: 1975, organization: "旧設計事務所" });

  // From now on Cognito knows the member: sign-in no longer needs the legacy table.
  await handle.db.delete(legacyCredentials);
  expect((await signInAs("legacy-js-on@example.jp", "old-password-2019")).kind).toBe("active");
});
