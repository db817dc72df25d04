import type { TFunction, i18n } from "i18next";
import type { ActivityEntry } from "~/domain/security/security-activity.server";
import { formatDateTime } from "./admin/formats";
import { nameDevice } from "./device-rows.server";
import type { ActivityRow } from "./security-activity-list";

/**
 * The activity as SecurityActivityList shows it, its texts and Japan times made here, so the page sends what it
 * shows rather than every event's text. Each row says only what is known: no device, browser or IP means no words
 * for them. A counted event (refused sign-ins, an unfinished second step) is stamped with its latest attempt, where
 * the list also sorts it. A staff action names no staff member: "Staff" did it (the member's copy of their data
 * names them; this page is a glance, and staff addresses are not for every reader of a shared screen). "This wasn't
 * me" is offered on a live sign-in of another browser only.
 */
export function describeActivity(entries: readonly ActivityEntry[], texts: i18n, locale: string) {
  const t = texts.getFixedT(locale, "account");
  const authTexts = texts.getFixedT(locale, "auth");
  return entries.map((entry): ActivityRow => {
    if (entry.source === "staff") {
      return {
        id: `staff-${entry.id}`,
        at: entry.occurredAt.toISOString(),
        when: formatDateTime(entry.occurredAt, locale),
        what: t(`security.staffActions.${entry.action}` as never, {
          defaultValue: t("security.staffActions.other"),
        }),
        device: t("security.staff"),
        ipAddress: null,
        live: false,
        current: false,
        reportableSessionId: null,
      };
    }
    const stampedAt = entry.lastOccurredAt ?? entry.occurredAt;
    return {
      id: `event-${entry.id}`,
      at: stampedAt.toISOString(),
      when: formatDateTime(stampedAt, locale),
      what: describeEvent(entry, t, locale),
      device:
        entry.deviceName && entry.browser
          ? nameDevice(authTexts, { deviceName: entry.deviceName, browser: entry.browser })
          : (entry.deviceName ?? entry.browser),
      ipAddress: entry.ipAddress,
      live: entry.live,
      current: entry.current,
      reportableSessionId: entry.live && !entry.current ? entry.sessionId : null,
    };
  });
}

function describeEvent(entry: Extract<ActivityEntry, { source: "member" }>, t: TFunction<"account">, locale: string) {
  switch (entry.kind) {
    case "sign-in-refused":
      // occurredAt is the hour's start: the attempts came since then.
      return entry.attempts > 1
        ? t("security.events.sign-in-refused-repeated", {
            attempts: entry.attempts,
            since: formatDateTime(entry.occurredAt, locale),
          })
        : t("security.events.sign-in-refused");
    case "second-step-failed":
      return t("security.events.second-step-failed", {
        attempts: entry.attempts,
        passwordAt: formatDateTime(entry.occurredAt, locale),
      });
    case "sign-in":
      return t(`security.events.${entry.newBrowser ? "sign-in-new-browser" : "sign-in"}`);
    default:
      return t(`security.events.${entry.kind}`);
  }
}
