import enAccount from "../../locales/en/account.json";
import enApi from "../../locales/en/api.json";
import enAdmin from "../../locales/en/admin.json";
import enAdminImport from "../../locales/en/admin-import.json";
import enAdminEvents from "../../locales/en/admin-events.json";
import enAuth from "../../locales/en/auth.json";
import enCommon from "../../locales/en/common.json";
import enDevtools from "../../locales/en/devtools.json";
import enDocs from "../../locales/en/docs.json";
import enEmailChange from "../../locales/en/email-change.json";
import enErrors from "../../locales/en/errors.json";
import enForms from "../../locales/en/forms.json";
import enHome from "../../locales/en/home.json";
import enPasswordReset from "../../locales/en/password-reset.json";
import enPrefectures from "../../locales/en/prefectures.json";
import enProfile from "../../locales/en/profile.json";
import enSignUp from "../../locales/en/sign-up.json";
import enToasts from "../../locales/en/toasts.json";
import enWithdrawal from "../../locales/en/withdrawal.json";
import enCsvImport from "../../locales/en/csv-import.json";
import enSignInAlert from "../../locales/en/sign-in-alert.json";
import enPasskeys from "../../locales/en/passkeys.json";
import enStaffSession from "../../locales/en/staff-session.json";
import jaAccount from "../../locales/ja/account.json";
import jaApi from "../../locales/ja/api.json";
import jaAdmin from "../../locales/ja/admin.json";
import jaAdminImport from "../../locales/ja/admin-import.json";
import jaAdminEvents from "../../locales/ja/admin-events.json";
import jaAuth from "../../locales/ja/auth.json";
import jaCommon from "../../locales/ja/common.json";
import jaDevtools from "../../locales/ja/devtools.json";
import jaDocs from "../../locales/ja/docs.json";
import jaEmailChange from "../../locales/ja/email-change.json";
import jaErrors from "../../locales/ja/errors.json";
import jaForms from "../../locales/ja/forms.json";
import jaHome from "../../locales/ja/home.json";
import jaPasswordReset from "../../locales/ja/password-reset.json";
import jaPrefectures from "../../locales/ja/prefectures.json";
import jaProfile from "../../locales/ja/profile.json";
import jaSignUp from "../../locales/ja/sign-up.json";
import jaToasts from "../../locales/ja/toasts.json";
import jaWithdrawal from "../../locales/ja/withdrawal.json";
import jaCsvImport from "../../locales/ja/csv-import.json";
import jaSignInAlert from "../../locales/ja/sign-in-alert.json";
import jaPasskeys from "../../locales/ja/passkeys.json";
import jaStaffSession from "../../locales/ja/staff-session.json";
import type { Locale } from "./locales";

/** Japanese is the source of the key types: i18next's `t` only accepts keys that exist in it. */
export const jaResources = {
  common: jaCommon,
  errors: jaErrors,
  home: jaHome,
  docs: jaDocs,
  devtools: jaDevtools,
  toasts: jaToasts,
  forms: jaForms,
  admin: jaAdmin,
  auth: jaAuth,
  passwordReset: jaPasswordReset,
  signUp: jaSignUp,
  prefectures: jaPrefectures,
  profile: jaProfile,
  account: jaAccount,
  withdrawal: jaWithdrawal,
  emailChange: jaEmailChange,
  api: jaApi,
  csvImport: jaCsvImport,
  adminImport: jaAdminImport,
  adminEvents: jaAdminEvents,
  signInAlert: jaSignInAlert,
  passkeys: jaPasskeys,
  staffSession: jaStaffSession,
};
export type Resources = typeof jaResources;

/** Shape of a namespace with every leaf a string: English must have exactly the Japanese keys. */
type SameKeys<T> = { [K in keyof T]: T[K] extends string ? string : SameKeys<T[K]> };

// A key missing from English is a type error here, so `npm run typecheck` (part of `npm test`) fails.
const enResources: SameKeys<Resources> = {
  common: enCommon,
  errors: enErrors,
  home: enHome,
  docs: enDocs,
  devtools: enDevtools,
  toasts: enToasts,
  forms: enForms,
  admin: enAdmin,
  auth: enAuth,
  passwordReset: enPasswordReset,
  signUp: enSignUp,
  prefectures: enPrefectures,
  profile: enProfile,
  account: enAccount,
  withdrawal: enWithdrawal,
  emailChange: enEmailChange,
  api: enApi,
  csvImport: enCsvImport,
  adminImport: enAdminImport,
  adminEvents: enAdminEvents,
  signInAlert: enSignInAlert,
  passkeys: enPasskeys,
  staffSession: enStaffSession,
};

export const RESOURCES: Record<Locale, SameKeys<Resources>> = { ja: jaResources, en: enResources };
export const NAMESPACES = Object.keys(jaResources) as (keyof Resources)[];
export const DEFAULT_NAMESPACE = "common";
