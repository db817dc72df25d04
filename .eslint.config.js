// ESLint flat config, kept as a dotfile because the repository's top level is fixed: `npm run lint` passes it with
// --config. No type-aware rules, so a run stays fast on a 2-core machine; `tsc` does the type checking.
import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import { importX } from "eslint-plugin-import-x";
import { defineConfig } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

// An import names a folder of app/ either through the `~/` alias or by walking up with `../`; the layer rules must
// catch both spellings.
const inApp = (folder) => `^(~/|(\\.\\./)+)${folder}(/|$)`;

const NO_TESTS = {
  regex: "^(\\.\\./)+tests(/|$)",
  message: "Production code does not import the tests' tree; only the dev entry (app/server/dev*.ts) may.",
};

const DB_ALIAS = {
  regex: "^(\\.\\./)+db(/|$)",
  message: "Import db/ through its alias: ~db/schema, ~db/client.server.",
};

// What every file of app/ keeps to, whichever layer it is in.
const APP_WIDE = [NO_TESTS, DB_ALIAS];

const DOMAIN_RULES = [
  { regex: "^(react-router|@react-router/.*)$", message: "The domain knows nothing of React Router." },
  { regex: inApp("routing"), message: "The domain builds no URLs: return data and let the route or mailer link it." },
  { regex: inApp("middleware"), message: "The domain does not depend on middleware; middleware wires the domain." },
  { regex: inApp("routes"), message: "The domain does not import routes." },
  { regex: inApp("components"), message: "The domain does not import components." },
  { regex: inApp("server"), message: "The domain does not import the HTTP server." },
  {
    regex: `^(~/|(\\.\\./)+)(composition-root|router-context)\\.server$`,
    message: "The domain is handed its services: it neither builds them nor reads a router context.",
  },
  { regex: "^(i18next|remix-i18next|react-i18next)(/|$)", message: "The domain renders no localized text." },
  {
    // ~/i18n/locales is the locale list and the Locale type, no i18n runtime: the domain may use it.
    regex: `^(~/|(\\.\\./)+)i18n/(?!locales$)`,
    message: "The domain uses only ~/i18n/locales (the locale list); translations belong to routes and the mailer.",
  },
];

// The adapters' own errors reach the domain only through withDomainErrors (app/domain/domain-error.server.ts): the
// domain's verbs see DomainError codes, never an adapter's error class.
const ADAPTER_ERRORS = {
  regex: "^(~/|(\\.\\./)+)integrations/(cognito/cognito-errors|mailer)\\.server$",
  allowTypeImports: true,
  message: "The domain sees adapter errors only as DomainError: convert in domain-error.server.ts (withDomainErrors).",
};

const INTEGRATION_RULES = [{ regex: inApp("domain"), message: "Integrations (adapters) do not import the domain." }];

// Components render what loaders give them: they may use the domain's types and form choices, routing and i18n,
// never what runs a request.
const COMPONENT_RULES = [
  { regex: inApp("routes"), message: "Components do not import routes: routes compose components." },
  { regex: inApp("server"), message: "Components do not import the HTTP server." },
  {
    regex: inApp("middleware"),
    message: "Components do not import middleware: the route's loader passes the data in.",
  },
  { regex: inApp("forms"), message: "Components do not import the form kit's server half (app/forms/): loaders do." },
  {
    regex: inApp("integrations"),
    message: "Components do not reach the adapters: the route's loader passes the data in.",
  },
  {
    regex: `^(~/|(\\.\\./)+)composition-root\\.server$`,
    message: "Components do not build services; the route's loader passes the data in.",
  },
];

// The layers of app/, lowest first; each imports only from layers below it (not necessarily from all of them):
//   cookies/, config.server, router-context.server and i18n/locales (the locale list, the language of a path)
//   < routing/ (URLs) < i18n/ (translations, the request's language) < integrations/ (adapters) < domain/
//   < middleware/ and errors/ < forms/ (the form kit's server half) < routes/, layouts/, api/, server/.
// components/ sit beside middleware/, below forms/ (which names their types): they render what loaders hand them.
// A layer below the domain takes plain values, so it never has to know the domain's modules.

// Routing names URLs and reads requests for routes and middleware, below both: of i18n/ it uses only the locale list.
const ROUTING_RULES = [
  { regex: inApp("routes"), message: "Routing does not import routes: routes use routing." },
  { regex: inApp("components"), message: "Routing does not import components: components use routing." },
  { regex: inApp("middleware"), message: "Routing does not depend on middleware; middleware uses routing." },
  { regex: inApp("server"), message: "Routing does not import the HTTP server." },
  { regex: inApp("integrations"), message: "Routing does not reach the adapters: routes call the domain." },
  {
    regex: inApp("domain"),
    message: "Routing does not import the domain: it names URLs, the domain's callers use both.",
  },
  { regex: inApp("cookies"), message: "Routing does not read cookies: middleware and routes do." },
  { regex: inApp("(api|forms|layouts|errors)"), message: "Routing imports none of the layers above it." },
  {
    regex: `^(~/|(\\.\\./)+)i18n/(?!locales$)`,
    message: "Routing uses only ~/i18n/locales: the rest of i18n/ sits above routing (it reads the API's paths).",
  },
];

// Translations and the request's language (remix-i18next's middleware), under the domain, the routes and the pages:
// names of the domain's data in a language (countries, prefectures) live beside the forms that offer them
// (app/components/form/).
const I18N_RULES = [
  {
    regex: inApp("domain"),
    message: "i18n/ does not import the domain: the domain may use i18n/locales, not the reverse.",
  },
  { regex: inApp("routes"), message: "i18n/ does not import routes: routes use i18n/." },
  { regex: inApp("components"), message: "i18n/ does not import components: components use i18n/." },
  { regex: inApp("server"), message: "i18n/ does not import the HTTP server." },
  { regex: inApp("middleware"), message: "i18n/ does not import middleware: middleware and loaders use i18n/." },
  {
    regex: inApp("(integrations|cookies|forms|api|layouts|errors)"),
    message: "i18n/ imports none of the layers above it.",
  },
];

// Cookies are the browser's state, named and signed: at the bottom, holding the domain's values without its rules.
const COOKIE_RULES = [
  { regex: inApp("domain"), message: "Cookies do not import the domain: they hold values, the domain decides." },
  { regex: inApp("middleware"), message: "Cookies do not import middleware: middleware reads cookies." },
  {
    regex: inApp("(routing|i18n|integrations|forms|components|layouts|routes|api|server|errors)"),
    message: "Cookies import none of the other layers: they sit below them.",
  },
];

// Middleware runs around a request's loaders and actions: it uses the domain, cookies, routing and i18n/, never the
// modules it runs for.
const MIDDLEWARE_RULES = [
  { regex: inApp("routes"), message: "Middleware does not import routes: routes use middleware." },
  { regex: inApp("api"), message: "Middleware does not import the API: the API uses middleware." },
  { regex: inApp("server"), message: "Middleware does not import the HTTP server: the server runs the build." },
  { regex: inApp("(components|layouts|forms)"), message: "Middleware imports none of the layers above it." },
];

// The form kit's server half (parsing a post, its reply, the loader's constraints): used by routes, above
// middleware and the error messages it answers with. Of components it names only the types its replies fill.
const FORMS_RULES = [
  { regex: inApp("routes"), message: "The form kit does not import routes: routes use the form kit." },
  { regex: inApp("(api|server|layouts)"), message: "The form kit imports none of the layers above it." },
  {
    regex: inApp("components"),
    allowTypeImports: true,
    message: "The form kit takes only types from components (the form's constraints); the page renders them.",
  },
];

// The HTTP server serves the build: what it needs of the app's rules and services (the jobs, the body limits) the
// composition root (app/composition-root.server.ts) hands it.
const SERVER_RULES = [
  {
    regex: inApp("domain"),
    message: "The HTTP server does not import the domain: take it from the composition root.",
  },
  { regex: inApp("routes"), message: "The HTTP server does not import routes: it serves the build." },
  { regex: inApp("components"), message: "The HTTP server does not import components: it serves the build." },
  { regex: inApp("middleware"), message: "The HTTP server does not import middleware: it runs in the build." },
];

const ROUTE_ADAPTER_RULE = {
  regex: inApp("integrations/cognito"),
  message: "Routes do not reach into the Cognito adapter: use the domain's verbs and the edge error mapping.",
};

// A route module may import only the `.server` modules of its own folder (its companion or a helper the folder
// shares) and its generated `./+types/*`; every other path into app/routes/ is another route.
function routeRules(depth) {
  const up = depth === 0 ? "" : `|(\\.\\./){1,${depth}}(?!\\.\\./)`;
  return [
    {
      regex: `^(~/routes/|\\./(?!\\+types/|[^/]+\\.server$)${up})`,
      message: "Routes do not import each other: move shared code to the domain, components or routing.",
    },
    ROUTE_ADAPTER_RULE,
  ];
}

// The same rules for dynamic import(): no-restricted-imports sees only static imports and re-exports.
// `/` is written \x2F because esquery ends a regex literal at the first slash.
const dynamicImports = (rules) =>
  rules.map(({ regex, message }) => ({
    selector: `ImportExpression[source.value=/${regex.replaceAll("/", "\\x2F")}/]`,
    message,
  }));

// React Router hands handlers the request as it came (its future.v8_passThroughRequests): a data request's
// `request.url` keeps its `.data` suffix and React Router's own parameters, so handlers read the page's URL from
// their `url` argument (app/routing/page-request.ts).
const PAGE_URL_RULE = {
  selector: "MemberExpression[object.name='request'][property.name='url']",
  message: "Read the page's URL from the handler's `url` argument: a data request's request.url keeps `.data`.",
};

function layer(files, rules, extra = {}, syntax = []) {
  return {
    files,
    ...extra,
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: rules }],
      "no-restricted-syntax": ["error", ...dynamicImports(rules), ...syntax],
    },
  };
}

const TS = "{ts,tsx}";
const ROUTE_DEPTHS = [0, 1, 2, 3];

export default defineConfig(
  {
    ignores: [
      "build/",
      // The benches' minimal React Router app builds beside its sources.
      "tests/bench/minimal-app/build/",
      ".react-router/",
      ".data/",
      ".cognito/",
      "test-results/",
      "playwright-report/",
      "db/migrations/",
      "public/",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  { files: [`app/**/*.${TS}`], ...reactHooks.configs.flat.recommended },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },

  // No import cycles in app/ and db/: a cycle makes module load order decide what is initialised, and usually means
  // two layers each own half of something. Type-only imports are not followed (they vanish at runtime).
  {
    files: [`app/**/*.${TS}`, `db/**/*.${TS}`],
    plugins: { "import-x": importX },
    settings: {
      // The TypeScript preset's extensions and parser, without its other rules: the rule must parse .ts and .tsx
      // to follow their imports.
      "import-x/extensions": importX.flatConfigs.typescript.settings["import-x/extensions"],
      "import-x/parsers": importX.flatConfigs.typescript.settings["import-x/parsers"],
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "tsconfig.json" })],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },

  // Layer rules. Flat config replaces a rule's options when two blocks match a file, so each block below repeats the
  // app-wide restrictions (APP_WIDE); the dev entry is the one file of app/ allowed to load test support.
  layer([`app/**/*.${TS}`], APP_WIDE, { ignores: [`app/server/dev*.ts`] }),
  layer([`app/middleware/**/*.${TS}`], [...APP_WIDE, ...MIDDLEWARE_RULES], {}, [PAGE_URL_RULE]),
  layer([`app/cookies/**/*.${TS}`], [...APP_WIDE, ...COOKIE_RULES]),
  layer([`app/forms/**/*.${TS}`], [...APP_WIDE, ...FORMS_RULES]),
  layer([`app/domain/**/*.${TS}`], [...APP_WIDE, ...DOMAIN_RULES, ADAPTER_ERRORS], {
    ignores: ["app/domain/domain-error.server.ts"],
  }),
  layer(["app/domain/domain-error.server.ts"], [...APP_WIDE, ...DOMAIN_RULES]),
  layer([`app/integrations/**/*.${TS}`], [...APP_WIDE, ...INTEGRATION_RULES]),
  layer([`app/components/**/*.${TS}`], [...APP_WIDE, ...COMPONENT_RULES]),
  layer([`app/routing/**/*.${TS}`], [...APP_WIDE, ...ROUTING_RULES]),
  layer([`app/i18n/**/*.${TS}`], [...APP_WIDE, ...I18N_RULES]),
  layer([`app/server/**/*.${TS}`], [...APP_WIDE, ...SERVER_RULES], { ignores: [`app/server/dev*.ts`] }),
  layer([`app/server/dev*.ts`], [DB_ALIAS, ...SERVER_RULES]),
  ...ROUTE_DEPTHS.map((depth) =>
    layer([`app/routes/${"*/".repeat(depth)}*.${TS}`], [...APP_WIDE, ...routeRules(depth)], {}, [PAGE_URL_RULE]),
  ),
  // db/ holds schema, migrations and the client: it may name app/'s types (`import type`) but runs no app/ code.
  layer(
    [`db/**/*.${TS}`],
    [
      {
        regex: "^(~/|(\\.\\./)+app(/|$))",
        allowTypeImports: true,
        message: "db/ imports only types from app/; jobs that need the domain live outside db/.",
      },
    ],
  ),
);
