import { Fragment } from "react";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance } from "~/i18n/i18n-middleware.server";
import { servicesOf } from "~/router-context.server";
import { DOCUMENT_PAGE } from "~/routing/document-page";
import type { Route } from "./+types/docs-api";
import { type ApiEndpointDoc, type ApiErrorDoc, type ApiFieldDoc, getApiReference } from "./docs-api.server";
import { formatDocsPageTitle } from "./docs-texts.server";

/** Served by app/routes/api/openapi.ts; the page links to it with a plain <a> (it is JSON, not a page). */
const OPENAPI_DOCUMENT_PATH = "/api/openapi.json";

export async function loader({ context }: Route.LoaderArgs) {
  return {
    reference: getApiReference(servicesOf(context).config.origin),
    pageTitle: formatDocsPageTitle(context, getInstance(context).t("api:reference.title")),
    translations: loadTranslations(context, ["api"]),
  };
}

/** The member API for the engineers of the sibling services, generated from the same OpenAPI document. */
export default function ApiReferencePage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("api");
  const { origin, endpoints, errors } = loaderData.reference;
  return (
    <article className="content api-reference">
      <h1>{t("reference.title")}</h1>
      <p className="content__lead">{t("reference.intro")}</p>
      <dl className="api-reference__facts">
        <dt>{t("reference.baseUrl")}</dt>
        <dd>
          <code>{origin}</code>
        </dd>
        <dt>OpenAPI 3.1</dt>
        <dd>
          <a href={OPENAPI_DOCUMENT_PATH} type="application/json">
            {t("reference.openapiLink")}
          </a>
        </dd>
      </dl>

      <section aria-labelledby="api-auth">
        <h2 id="api-auth">{t("reference.authTitle")}</h2>
        <p>
          <TextWithCode text={t("reference.auth")} />
        </p>
      </section>

      <section aria-labelledby="api-language">
        <h2 id="api-language">{t("reference.languageTitle")}</h2>
        <p>
          <TextWithCode text={t("reference.language")} />
        </p>
      </section>

      <section aria-labelledby="api-errors">
        <h2 id="api-errors">{t("reference.errorsTitle")}</h2>
        <p>
          <TextWithCode text={t("reference.errors")} />
        </p>
        {/* Focusable so a keyboard can scroll it if a narrow screen ever makes it wider than the page. */}
        <div className="table-scroll" role="region" aria-labelledby="api-errors-caption" tabIndex={0}>
          <table className="api-reference__error-table">
            <caption id="api-errors-caption">{t("reference.errorsCaption")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("reference.codeColumn")}</th>
                <th scope="col">{t("reference.statusColumn")}</th>
                <th scope="col">{t("reference.messageColumn")}</th>
              </tr>
            </thead>
            <tbody>
              {errors.map((error) => (
                <tr key={error.code}>
                  <th scope="row">
                    <code>
                      <BreakableCode code={error.code} />
                    </code>
                  </th>
                  <td>{error.status}</td>
                  <td>{t(`errors.${error.code}`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="api-cors">
        <h2 id="api-cors">{t("reference.corsTitle")}</h2>
        <p>
          <TextWithCode text={t("reference.cors")} />
        </p>
      </section>

      <section aria-labelledby="api-admin">
        <h2 id="api-admin">{t("reference.adminTitle")}</h2>
        <p>
          <TextWithCode text={t("reference.admin")} />
        </p>
      </section>

      <section aria-labelledby="api-events">
        <h2 id="api-events">{t("reference.eventsTitle")}</h2>
        <p>
          <TextWithCode text={t("reference.events")} />
        </p>
        <p>
          <TextWithCode text={t("reference.feedAuth")} />
        </p>
      </section>

      <section aria-labelledby="api-endpoints">
        <h2 id="api-endpoints">{t("reference.endpointsTitle")}</h2>
        <ul className="api-reference__index" aria-label={t("reference.endpointsLabel")}>
          {endpoints.map((endpoint) => (
            <li key={endpoint.operationId}>
              <a href={`#${endpoint.operationId}`}>
                <MethodAndPath endpoint={endpoint} />
              </a>
              <span className="api-reference__index-summary">{t(`operations.${endpoint.operationId}.summary`)}</span>
            </li>
          ))}
        </ul>
        <p className="api-reference__note">{t("reference.fieldsNote")}</p>
        {endpoints.map((endpoint) => (
          <Endpoint key={endpoint.operationId} endpoint={endpoint} />
        ))}
      </section>
    </article>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => (loaderData ? [{ title: loaderData.pageTitle }] : []);

function Endpoint({ endpoint }: { endpoint: ApiEndpointDoc }) {
  const { t } = useTranslation("api");
  const headingId = endpoint.operationId;
  return (
    <section className="api-endpoint" aria-labelledby={headingId} data-testid="api-endpoint">
      <h3 id={headingId} className="api-endpoint__title">
        <MethodAndPath endpoint={endpoint} />
      </h3>
      <p className="api-endpoint__summary">
        {t(`operations.${endpoint.operationId}.summary`)}
        {endpoint.admin ? <strong className="api-endpoint__access"> ({t("reference.adminOnly")})</strong> : null}
      </p>
      <p>
        <TextWithCode text={t(`operations.${endpoint.operationId}.description`)} />
      </p>

      {endpoint.queryFields ? (
        <>
          <h4>{t("reference.queryParameters")}</h4>
          <FieldList fields={endpoint.queryFields} kind="request" />
        </>
      ) : null}

      <h4>{t("reference.request")}</h4>
      {endpoint.requestFields === null ? (
        <p>{t("reference.noBody")}</p>
      ) : (
        <FieldList fields={endpoint.requestFields} kind="request" />
      )}

      <h4>{t("reference.response")}</h4>
      <p>{t("reference.successStatus", { status: endpoint.successStatus })}</p>
      <FieldList fields={endpoint.responseFields} kind="response" />

      <h4>{t("reference.errorCodes")}</h4>
      <p className="api-reference__note">{t("reference.endpointErrors")}</p>
      <ErrorList errors={endpoint.errors} />
    </section>
  );
}

function MethodAndPath({ endpoint }: { endpoint: ApiEndpointDoc }) {
  return (
    <>
      <span className={`api-method api-method--${endpoint.method.toLowerCase()}`}>{endpoint.method}</span>{" "}
      <code className="api-path">{endpoint.path}</code>
    </>
  );
}

/** A body's top-level fields: a definition list, which stays readable on a phone where a table would not. */
function FieldList({ fields, kind }: { fields: ApiFieldDoc[]; kind: "request" | "response" }) {
  const { t } = useTranslation("api");
  return (
    <dl className="api-fields">
      {fields.map((field) => {
        // In a response every field is there unless marked; in a request both cases are spelled out.
        const presence =
          kind === "request"
            ? t(field.required ? "reference.required" : "reference.optional")
            : field.required
              ? null
              : t("reference.mayBeAbsent");
        return (
          <div key={field.name} className="api-fields__row">
            <dt>
              <code>{field.name}</code>
            </dt>
            <dd>
              <code className="api-fields__type">{field.type}</code>
              {presence ? (
                <span className={`api-fields__presence${field.required ? " api-fields__presence--required" : ""}`}>
                  {presence}
                </span>
              ) : null}
            </dd>
            {field.values.length > 0 ? (
              <dd className="api-fields__values">
                {t("reference.allowedValues")}:{" "}
                {field.values.map((value, index) => (
                  <span key={value}>
                    {index > 0 ? ", " : null}
                    <code>{value}</code>
                  </span>
                ))}
              </dd>
            ) : null}
          </div>
        );
      })}
    </dl>
  );
}

function ErrorList({ errors }: { errors: ApiErrorDoc[] }) {
  const { t } = useTranslation("api");
  return (
    <ul className="api-errors">
      {errors.map((error) => (
        <li key={error.code} className="api-errors__item">
          <span className="api-errors__status">{error.status}</span> <code>{error.code}</code>{" "}
          <span className="api-errors__message">{t(`errors.${error.code}`)}</span>
        </li>
      ))}
    </ul>
  );
}

/** An error code that a narrow column may wrap after its underscores ("device_limit_" / "exceeded"). */
function BreakableCode({ code }: { code: string }) {
  return (
    <>
      {code.split("_").map((part, index) =>
        index === 0 ? (
          part
        ) : (
          <Fragment key={index}>
            _<wbr />
            {part}
          </Fragment>
        ),
      )}
    </>
  );
}

/** Texts mark inline code with backticks, as in Markdown. */
function TextWithCode({ text }: { text: string }) {
  return (
    <>
      {text.split("`").map((part, index) =>
        // Odd parts sit between a pair of backticks.
        index % 2 === 1 ? <code key={index}>{part}</code> : part,
      )}
    </>
  );
}

export const handle = DOCUMENT_PAGE;
