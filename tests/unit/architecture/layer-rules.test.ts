import { mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { expect, test } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const LAYER_RULES = new Set(["@typescript-eslint/no-restricted-imports", "no-restricted-syntax"]);

// The project's own config, run on code that exists only in the test: the file path decides which layer it is in.
const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: path.join(ROOT, ".eslint.config.js") });
// The same without the cycle rule, for the layer tests: their imports name real modules, whose whole import graph
// the cycle rule would walk for each file.
const layerEslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: path.join(ROOT, ".eslint.config.js"),
  overrideConfig: { rules: { "import-x/no-cycle": "off" } },
});

/** The import sources the layer rules report when `code` sits at `filePath`. */
async function reportedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await layerEslint.lintText(code, { filePath: path.join(ROOT, filePath) });
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
    "~/i18n/i18n-middleware.server",
    "../middleware/member-session.server",
    "~/routes/default/auth-sign-in",
    "~/components/button",
    "~/server/http-app",
    "~/composition-root.server",
    "../router-context.server",
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
    'import type { Database } from "~db/client.server";',
    'import { memberSessions } from "~db/schema";',
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
  expect(await reportedImports("app/routes/default/auth-sign-in.tsx", code)).toEqual([
    "~/integrations/cognito/cognito-errors.server",
    "../../integrations/cognito/identity.server",
  ]);
});

test("routes do not import each other, nor another folder's server module", async () => {
  const wrong = [
    "./sign-up",
    "../my/devices",
    "~/routes/default/index",
    "../auth/rate-limits.server",
    "./nested/x.server",
  ];
  const right = ["./sign-in.server", "./rate-limits.server", "./+types/sign-in", "~/components/button", "~/domain/x"];
  const code = [...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/routes/default/auth-sign-in.tsx", code)).toEqual(wrong);
  const elsewhere = ['import { x } from "./my/email-edit.server";', 'const lazy = () => import("./auth/sign-in");'];
  expect(await reportedImports("app/routes/x.tsx", elsewhere.join("\n"))).toEqual([
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
  expect(await reportedImports("app/routes/member/x.tsx", code)).toHaveLength(3);
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

test("components import no route, HTTP server, adapter or composition root", async () => {
  const wrong = [
    "~/routes/member/my-profile",
    "../../routes/staff/admin",
    "~/server/http-app",
    "~/integrations/mailer.server",
    "../composition-root.server",
  ];
  const right = ["~/domain/forms/form-choices", "~/routing/route-table", "~/i18n/locales", "./button", "~/root.server"];
  const code = [...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/components/admin/x.tsx", code)).toEqual(wrong);
});

test("routing imports no route, component, middleware, HTTP server, adapter, domain, cookie or translation", async () => {
  const wrong = [
    "~/routes/default/index",
    "~/components/button",
    "../middleware/member-session.server",
    "~/server/http-app",
    "~/integrations/logger.server",
    "~/domain/sessions/service-recognition.server",
    "../domain/staff/spreadsheet-csv.server",
    "~/cookies/app-cookies.server",
    "~/i18n/translations.server",
    "../i18n/i18n-middleware.server",
    "~/api/csv-response.server",
    "~/forms/form-action.server",
  ];
  const right = ["~/i18n/locales", "../i18n/locales", "~/router-context.server", "~/config.server", "./route-table"];
  const code = [...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/routing/x.ts", code)).toEqual(wrong);
});

test("i18n imports no layer above it: domain, middleware, cookies, adapters, form kit, routes, components, server", async () => {
  const wrong = [
    "~/domain/forms/form-choices",
    "../domain/forms/prefectures",
    "~/routes/default/index",
    "~/components/form/country-choices",
    "~/server/http-app",
    "~/middleware/member-session.server",
    "../middleware/attempt-limit.server",
    "~/cookies/app-cookies.server",
    "~/integrations/mailer.server",
    "~/forms/form-action.server",
    "~/api/api-handler.server",
  ];
  const right = ["./locales", "~/i18n/resources", "./i18n-middleware.server", "~/routing/api-paths"];
  const code = [...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/i18n/x.ts", code)).toEqual(wrong);
});

test("the HTTP server imports no domain, route, component or middleware: the composition root hands it what it needs", async () => {
  const wrong = [
    "~/domain/jobs/purge.server",
    "../domain/csv-import-file.server",
    "~/routes/default/index",
    "~/components/button",
    "~/middleware/request-log.server",
  ];
  const right = [
    "~/composition-root.server",
    "~/i18n/i18n-middleware.server",
    "~/router-context.server",
    "~/integrations/logger.server",
    "~/routing/api-paths",
    "~db/client.server",
    "./page-checks",
  ];
  const code = [...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/server/x.ts", code)).toEqual(wrong);
  expect(await reportedImports("app/server/dev-entry.ts", code)).toEqual(wrong);
});

test("middleware imports no route, API module, HTTP server, component, layout or form kit", async () => {
  const wrong = [
    "~/routes/member/my-profile",
    "~/api/bearer-auth.server",
    "../api/api-response.server",
    "~/server/http-app",
    "~/components/button",
    "~/layouts/member-layout",
    "~/forms/form-action.server",
  ];
  const right = [
    "~/domain/sessions/page-sessions.server",
    "~/cookies/app-cookies.server",
    "~/i18n/i18n-middleware.server",
    "~/routing/route-table",
    "~/integrations/logger.server",
    "~/router-context.server",
    "./no-store.server",
  ];
  const code = [...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/middleware/x.server.ts", code)).toEqual(wrong);
});

test("cookies import no other layer of app/: no domain, middleware, routing, i18n or route", async () => {
  const wrong = [
    "~/domain/sessions/service-recognition.server",
    "../domain/sessions/page-sessions.server",
    "~/middleware/member-session.server",
    "~/routing/route-table",
    "~/i18n/locales",
    "~/integrations/logger.server",
    "~/routes/default/auth-sign-in",
    "~/api/bearer-auth.server",
  ];
  const right = ["./signed-cookie.server", "~/config.server", "zod"];
  const code = [...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/cookies/x.server.ts", code)).toEqual(wrong);
});

test("the form kit's server half imports no route, API or HTTP server, and only types from components", async () => {
  const wrong = [
    "~/routes/member/my-profile-edit",
    "~/api/api-handler.server",
    "~/server/http-app",
    "~/layouts/member-layout",
    "~/components/form/fields",
  ];
  const right = [
    "~/middleware/attempt-limit.server",
    "~/i18n/i18n-middleware.server",
    "~/errors/error-responses.server",
    "~/domain/limits/sign-in-failures.server",
  ];
  const code = [
    ...[...wrong, ...right].map((source, i) => `import * as m${i} from "${source}";`),
    'import type { FormConstraint } from "~/components/form/use-schema-form";',
  ].join("\n");
  expect(await reportedImports("app/forms/x.server.ts", code)).toEqual(wrong);
});

test("components import neither middleware nor the form kit's server half: loaders pass the data in", async () => {
  const wrong = [
    "~/middleware/attempt-limit.server",
    "../../middleware/require-member.server",
    "~/forms/form-action.server",
  ];
  const code = wrong.map((source, i) => `import * as m${i} from "${source}";`).join("\n");
  expect(await reportedImports("app/components/form/x.tsx", code)).toEqual(wrong);
});

test("app/ imports db/ through ~db, never by walking up to it", async () => {
  const code = [
    'import { memberProfiles } from "../../db/schema";',
    'import type { Database } from "../../../db/client.server";',
    'import { memberSessions } from "~db/schema";',
  ].join("\n");
  const walkingUp = ["../../db/schema", "../../../db/client.server"];
  for (const file of ["app/domain/x.server.ts", "app/middleware/x.server.ts", "app/routes/member/x.tsx", "app/x.ts"]) {
    expect(await reportedImports(file, code), file).toEqual(walkingUp);
  }
});

/**
 * A scratch folder's name: files the cycle tests write under app/ or db/ and remove again, named so that no other
 * test reading app/ (file-names.test.ts) can mistake them for the app's modules.
 */
const SCRATCH = `cycle-scratch-${process.pid}`;

/** The cycles the linter reports among `files` (name -> code), written to `folder`/SCRATCH, as "file:line". */
async function reportedCycles(folder: string, files: Record<string, string>): Promise<string[]> {
  const dir = path.join(ROOT, folder, SCRATCH);
  // The folder's time as it was: a scratch folder added and removed would make the build look older than its
  // sources (tests/support/build-freshness.ts) and rebuild it for the tests that run after this one.
  const { atime, mtime } = statSync(path.join(ROOT, folder));
  mkdirSync(dir, { recursive: true });
  try {
    for (const [name, code] of Object.entries(files)) writeFileSync(path.join(dir, name), code);
    const results = await eslint.lintFiles(Object.keys(files).map((name) => path.join(dir, name)));
    return results.flatMap((result) =>
      result.messages
        .filter((message) => message.ruleId === "import-x/no-cycle")
        .map((message) => `${path.basename(result.filePath)}:${message.line}`),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    utimesSync(path.join(ROOT, folder), atime, mtime);
  }
}

test("an import cycle fails the lint in app/, by relative path or through the ~/ alias", async () => {
  const cycle = {
    "cycle-a.ts": 'import { b } from "./cycle-b";\nexport const a = () => b;\n',
    "cycle-b.ts": `import { c } from "~/routing/${SCRATCH}/cycle-c";\nexport const b = () => c;\n`,
    "cycle-c.tsx": 'import { a } from "./cycle-a";\nexport const c = () => a;\n',
  };
  expect(await reportedCycles("app/routing", cycle)).toEqual(["cycle-a.ts:1", "cycle-b.ts:1", "cycle-c.tsx:1"]);
  // The same files with the cycle broken pass.
  expect(await reportedCycles("app/routing", { ...cycle, "cycle-c.tsx": "export const c = () => 1;\n" })).toEqual([]);
});

test("an import cycle fails the lint in db/", async () => {
  const cycle = {
    "cycle-a.ts": 'import { b } from "./cycle-b";\nexport const a = () => b;\n',
    "cycle-b.ts": 'import { a } from "./cycle-a";\nexport const b = () => a;\n',
  };
  expect(await reportedCycles("db", cycle)).toEqual(["cycle-a.ts:1", "cycle-b.ts:1"]);
});
