import type { TFunction } from "i18next";
import type { ActivityEntry } from "~/domain/security/security-activity.server";
import { formatDateTime } from "./admin/formats";
import type { ActivityRow } from "./security-activity-table";

/**
 * The activity as SecurityActivityTable shows it, its texts and Japan times made here, so the page sends what it
 * shows rather than every event's text. A staff action names no staff member: "Staff" did it (the member's copy of
 * their data names them; this page is a glance, and staff addresses are not for every reader of a shared screen).
 * "This wasn't me" is offered on a live sign-in of another browser only.
 */
export function describeActivity(entries: readonly ActivityEntry[], t: TFunction<"account">, locale: string) {
  return entries.map((entry): ActivityRow => {
    const when = formatDateTime(entry.occurredAt, locale);
    const at = entry.occurredAt.toISOString();
    if (entry.source === "staff") {
      return {
        id: `staff-${entry.id}`,
        at,
        when,
        what: t(`security.staffActions.${entry.action}` as never, {
          defaultValue: t("security.staffActions.other"),
        }),
        deviceName: t("security.staff"),
        browser: "",
        ipAddress: "",
        live: false,
        current: false,
        reportableSessionId: null,
      };
    }
    const what =
      entry.kind === "sign-in-refused" || entry.kind === "second-step-failed"
        ? t(`security.events.${entry.kind}`, {
            attempts: entry.attempts,
            last: formatDateTime(entry.lastOccurredAt ?? entry.occurredAt, locale),
          })
        : t(`security.events.${entry.kind === "sign-in" && entry.newBrowser ? "sign-in-new-browser" : entry.kind}`);
    return {
      id: `event-${entry.id}`,
      at,
      when,
      what,
      deviceName: entry.deviceName ?? "",
      browser: entry.browser ?? "",
      ipAddress: entry.ipAddress ?? "",
      live: entry.live,
      current: entry.current,
      reportableSessionId: entry.live && !entry.current ? entry.sessionId : null,
    };
  });
}
