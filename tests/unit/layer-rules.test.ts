import path from "node:path";
import { ESLint } from "eslint";
import { expect, test } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const LAYER_RULES = new Set(["@typescript-eslint/no-restricted-imports", "no-restricted-syntax"]);

// The project's own config, run on code that exists only in the test: the file path decides which layer it is in.
const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: path.join(ROOT, ".eslint.config.js") });

/** The import sources the layer rules report when `code` sits at `filePath`. */
async function reportedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result!.messages
    .filter((message) => message.ruleId !== null && LAYER_RULES.has(message.ruleId))
    .map((message) => code.split("\n")[message.line - 1]!.match(/["']([^"']+)["']/)![1]!);
}

test("the domain imports no React Router, routing, middleware, routes, components or i18n runtime", async () => {
  const wrong = [
    "react-router",
    "@react-router/node",
    "~/routing/route-table",
    "../routing/route-table",
    "~/middleware/i18n.server",
    "../middleware/member-session.server",
    "~/routes/auth/sign-in",
    "~/components/button",
    "i18next",
    "remix-i18next/server",
    "~/i18n/resources",
    "../i18n/translations.server",
  ];
  const code = wrong.map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/domain/x.server.ts", code)).toEqual(wrong);
});

test("the domain may import the database, the integrations' types and the locale list", async () => {
  const code = [
    'import type { Database } from "../../db/client.server";',
    'import { memberSessions } from "../../db/schema";',
    'import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";',
    'import { type Locale, LOCALES } from "~/i18n/locales";',
    'import { z } from "zod";',
  ].join("\n");
  expect(await reportedImports("app/domain/x.server.ts", code)).toEqual([]);
});

test("the domain meets adapter errors only where it turns them into DomainError", async () => {
  const code = [
    'import { IdentityError } from "~/integrations/cognito/cognito-errors.server";',
    'import { MailUnavailableError } from "../integrations/mailer.server";',
    'import type { Mailer } from "~/integrations/mailer.server";',
  ].join("\n");
  expect(await reportedImports("app/domain/x.server.ts", code)).toEqual([
    "~/integrations/cognito/cognito-errors.server",
    "../integrations/mailer.server",
  ]);
  expect(await reportedImports("app/domain/domain-error.server.ts", code)).toEqual([]);
});

test("integrations import no domain module, by alias or by relative path", async () => {
  const code = [
    'import { startSession } from "~/domain/member-session.server";',
    'import { startSession as again } from "../../domain/member-session.server";',
    'import { logger } from "../logger.server";',
  ].join("\n");
  expect(await reportedImports("app/integrations/cognito/x.server.ts", code)).toEqual([
    "~/domain/member-session.server",
    "../../domain/member-session.server",
  ]);
});

test("routes do not import the Cognito adapter", async () => {
  const code = [
    'import { IdentityError } from "~/integrations/cognito/cognito-errors.server";',
    'import { verify } from "../../integrations/cognito/identity.server";',
    'import type { Mailer } from "~/integrations/mailer.server";',
  ].join("\n");
  expect(await reportedImports("app/routes/auth/sign-in.tsx", code)).toEqual([
    "~/integrations/cognito/cognito-errors.server",
    "../../integrations/cognito/identity.server",
  ]);
});

test("routes do not import each other, nor another folder's server module", async () => {
  const wrong = ["./sign-up", "../my/devices", "~/routes/home", "../auth/rate-limits.server", "./nested/x.server"];
  const right = ["./sign-in.server", "./rate-limits.server", "./+types/sign-in", "~/components/button", "~/domain/x"];
  const code = [...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/routes/auth/sign-in.tsx", code)).toEqual(wrong);
  const elsewhere = ['import { x } from "./my/email-edit.server";', 'const lazy = () => import("./auth/sign-in");'];
  expect(await reportedImports("app/routes/email-update.tsx", elsewhere.join("\n"))).toEqual([
    "./my/email-edit.server",
    "./auth/sign-in",
  ]);
});

test("nothing in app/ imports the tests' tree, statically or dynamically, except the dev entry", async () => {
  const code = [
    'import { startStandIn } from "../../tests/support/cognito-stand-in";',
    'export { captureMail } from "../../tests/support/mail-capture";',
    'const harness = await import("../../tests/support/harness");',
  ].join("\n");
  expect(await reportedImports("app/server/main.ts", code)).toEqual([
    "../../tests/support/cognito-stand-in",
    "../../tests/support/mail-capture",
    "../../tests/support/harness",
  ]);
  expect(await reportedImports("app/domain/x.server.ts", code)).toHaveLength(3);
  expect(await reportedImports("app/routes/my/x.tsx", code)).toHaveLength(3);
  expect(await reportedImports("app/server/dev.ts", code)).toEqual([]);
});

test("db/ imports only types from app/", async () => {
  const code = [
    'import { purge } from "../app/domain/jobs/purge.server";',
    'import type { Locale } from "../app/i18n/locales";',
    'import { memberProfiles } from "./schema";',
  ].join("\n");
  expect(await reportedImports("db/x.ts", code)).toEqual(["../app/domain/jobs/purge.server"]);
});
