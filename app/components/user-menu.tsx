import { useRef } from "react";
import { useTranslation } from "~/i18n/use-translation";
import type { RootData } from "~/root.server";
import { AccountLinks } from "./account-links";
import { CloseIcon, PersonIcon } from "./icons";
import { useDisclosureDismiss } from "./use-disclosure-dismiss";
import { useRootData } from "./use-root-data";

type UserMenuProps = { member: RootData["member"]; className?: string };

/**
 * The account menu at the right of the header: a popover on wide screens, a full-screen sheet up to 640px.
 * Members see who is signed in and their account pages; visitors get log in and sign up (on narrow id/compe
 * headers this is the compact login icon). A <details> element, so it works with JavaScript off.
 */
export function UserMenu({ member, className }: UserMenuProps) {
  const ref = useRef<HTMLDetailsElement>(null);
  useDisclosureDismiss(ref);
  const { t } = useTranslation();
  const { locale } = useRootData();
  const classes = ["user-menu", member ? "user-menu--member" : "user-menu--guest", className].filter(Boolean);
  return (
    // A click before hydration may have opened it already; that is not a mismatch worth a warning.
    <details ref={ref} suppressHydrationWarning className={classes.join(" ")}>
      <summary className="user-menu__toggle">
        <span className="user-menu__toggle-open">
          <PersonIcon />
          {member ? (
            <>
              <span className="visually-hidden">{t("userMenu.label")}</span>
              <span className="user-menu__name">{member.displayName}</span>
            </>
          ) : (
            <span className="visually-hidden">{t("userMenu.openSignedOut")}</span>
          )}
        </span>
        <span className="user-menu__toggle-close">
          <CloseIcon />
          <span className="visually-hidden">{t("userMenu.close")}</span>
        </span>
      </summary>
      <div className="user-menu__panel">
        {member ? (
          <>
            <p className="user-menu__caption">{t("userMenu.signedInAs")}</p>
            <p className="user-menu__display-name">{member.displayName}</p>
            <p className="user-menu__email">{member.email}</p>
          </>
        ) : (
          <p className="user-menu__lead">{t("userMenu.signedOutLead")}</p>
        )}
        <AccountLinks block="user-menu" signedIn={member !== null} locale={locale} />
      </div>
    </details>
  );
}
