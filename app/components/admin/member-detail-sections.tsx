import type { ReactNode } from "react";
import type { MemberDetail } from "~/domain/staff/member-detail.server";
import { useTranslation } from "~/i18n/use-translation";
import { formatDateTime } from "./formats";
import { PROFILE_FIELD_ORDER } from "~/domain/forms/form-choices";
import { useAdminLabels } from "./use-admin-labels";

function Facts({ children }: { children: ReactNode }) {
  return <dl className="admin-facts">{children}</dl>;
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="admin-section" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

/** The member as staff see them: Cognito, profile, sessions, e-mail history, cancellation, legacy state. */
export function MemberDetailSections({ detail }: { detail: MemberDetail }) {
  const { t, i18n } = useTranslation("admin");
  const labels = useAdminLabels();
  const when = (value: Date | string | null | undefined) => (value ? formatDateTime(value, i18n.language) : "—");
  const yesNo = (value: boolean) => (value ? t("yes") : t("no"));
  const { directory, profile, sessions, emailChanges, cancellation, legacy } = detail;
  return (
    <>
      <Section id="detail-cognito" title={t("detail.cognito")}>
        <Facts>
          <Fact label={t("detail.sub")}>
            <code>{detail.sub}</code>
          </Fact>
          {directory ? (
            <>
              <Fact label={t("detail.email")}>
                <span data-testid="member-email">{directory.email}</span>
              </Fact>
              <Fact label={t("detail.emailVerified")}>{yesNo(directory.emailVerified)}</Fact>
              <Fact label={t("detail.status")}>
                <span data-testid="member-status">{labels.status(directory.status)}</span>
              </Fact>
              <Fact label={t("detail.enabled")}>{yesNo(directory.enabled)}</Fact>
              <Fact label={t("detail.cognitoStatus")}>{directory.cognitoStatus}</Fact>
              <Fact label={t("detail.groups")}>{directory.groups.join(", ") || "—"}</Fact>
              <Fact label={t("detail.locale")}>{labels.language(directory.locale)}</Fact>
              <Fact label={t("detail.createdAt")}>{when(directory.signedUpAt)}</Fact>
              <Fact label={t("detail.updatedAt")}>{when(directory.cognitoUpdatedAt)}</Fact>
              <Fact label={t("detail.syncedAt")}>{when(directory.syncedAt)}</Fact>
              {directory.missingFromCognitoAt ? (
                <Fact label={t("detail.missingAt")}>{when(directory.missingFromCognitoAt)}</Fact>
              ) : null}
            </>
          ) : null}
        </Facts>
      </Section>

      <Section id="detail-profile" title={t("detail.profile")}>
        {profile ? (
          <Facts>
            {PROFILE_FIELD_ORDER.map((field) => (
              <Fact key={field} label={labels.profileField(field)}>
                {profile[field] === null || profile[field] === undefined ? "—" : String(profile[field])}
              </Fact>
            ))}
            {Object.entries(profile.questionnaire ?? {}).map(([question, answer]) => (
              <Fact key={question} label={question}>
                {Array.isArray(answer) ? answer.join(", ") : String(answer)}
              </Fact>
            ))}
          </Facts>
        ) : (
          <p>{t("detail.noProfile")}</p>
        )}
      </Section>

      <Section id="detail-sessions" title={t("detail.sessions")}>
        {sessions.length === 0 ? (
          <p>{t("detail.noSessions")}</p>
        ) : (
          <div className="admin-table-scroll">
            <table className="admin-table" data-testid="member-sessions">
              <thead>
                <tr>
                  <th scope="col">{t("detail.sessionColumns.device")}</th>
                  <th scope="col">{t("detail.sessionColumns.browser")}</th>
                  <th scope="col">{t("detail.sessionColumns.createdAt")}</th>
                  <th scope="col">{t("detail.sessionColumns.lastSignInAt")}</th>
                  <th scope="col">{t("detail.sessionColumns.state")}</th>
                </tr>
              </thead>
              <tbody>
                {sessions.map((session) => (
                  <tr key={session.id}>
                    <th scope="row">{session.deviceName}</th>
                    <td>{session.browser}</td>
                    <td>{when(session.createdAt)}</td>
                    <td>{when(session.lastLoginAt)}</td>
                    <td>
                      {t(
                        session.live
                          ? "detail.sessionStates.live"
                          : session.revokedAt
                            ? "detail.sessionStates.ended"
                            : "detail.sessionStates.held",
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>

      <Section id="detail-email-history" title={t("detail.emailHistory")}>
        {emailChanges.length === 0 ? (
          <p>{t("detail.noEmailHistory")}</p>
        ) : (
          <div className="admin-table-scroll">
            <table className="admin-table">
              <thead>
                <tr>
                  <th scope="col">{t("detail.emailColumns.from")}</th>
                  <th scope="col">{t("detail.emailColumns.to")}</th>
                  <th scope="col">{t("detail.emailColumns.at")}</th>
                  <th scope="col">{t("detail.emailColumns.state")}</th>
                </tr>
              </thead>
              <tbody>
                {emailChanges.map((change) => (
                  <tr key={`${change.newEmail}-${String(change.requestedAt)}`}>
                    <td>{change.oldEmail}</td>
                    <td>{change.newEmail}</td>
                    <td>{when(change.usedAt ?? change.requestedAt)}</td>
                    <td>{t(`detail.emailStates.${change.state}`)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>

      <Section id="detail-cancellation" title={t("detail.cancellation")}>
        {cancellation ? (
          <Facts>
            <Fact label={t("detail.reason")}>{labels.reason(cancellation.reason)}</Fact>
            {cancellation.detail ? <Fact label={t("detail.reasonDetail")}>{cancellation.detail}</Fact> : null}
            <Fact label={t("detail.cancelledAt")}>{when(cancellation.cancelledAt)}</Fact>
          </Facts>
        ) : (
          <p>{t("detail.notCancelled")}</p>
        )}
      </Section>

      <Section id="detail-legacy" title={t("detail.legacy")}>
        {legacy ? (
          <Facts>
            <Fact label={t("detail.importedAt")}>{when(legacy.importedAt)}</Fact>
            <Fact label={t("detail.migratedAt")}>{when(legacy.migratedAt)}</Fact>
          </Facts>
        ) : (
          <p>{t("detail.notLegacy")}</p>
        )}
      </Section>
    </>
  );
}
