import { getFormProps, getInputProps } from "@conform-to/react";
import { Form, useNavigation } from "react-router";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { CheckboxField, FormAlert } from "~/components/form/fields";
import { useSchemaForm } from "~/components/form/use-schema-form";
import { ProfileFields } from "~/components/profile-fields";
import { useRootData } from "~/components/use-root-data";
import { ProfileFormSchema, withStoredPrefecture } from "~/domain/forms/profile-schemas";
import { JAPAN, listedPrefectureOf } from "~/domain/forms/prefectures";
import { isProfileFilled } from "~/domain/account/display-name.server";
import { findProfile, updateProfile } from "~/domain/account/profile.server";
import { receivesNewsletter } from "~/domain/newsletter/newsletter.server";
import { countryChoices } from "~/components/form/country-choices";
import { prefectureChoices } from "~/components/form/prefecture-choices";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { getToastUtils } from "~/toast.server";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/my-profile-edit";

/**
 * The "signUp" texts ProfileFields uses: profile edit shows none of sign-up's others. Here rather than in the
 * component, so the list stays out of the browser's JavaScript.
 */
const PROFILE_FIELD_KEYS = [
  ...[
    "realNames",
    "familyName",
    "givenName",
    "birthYear",
    "birthYearHint",
    "country",
    "prefectureInJapan",
    "prefectureInJapanHint",
    "region",
    "regionHint",
    "occupation",
    "organization",
    "preferredLanguage",
  ].map((key) => `account.${key}`),
  "options.occupation",
  "options.language",
];

export async function loader({ url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  const locale = getLocale(context);
  const t = getInstance(context).getFixedT(locale, "signUp");
  const { db } = servicesOf(context);
  const [profile, newsletter] = await Promise.all([findProfile(db, member.sub), receivesNewsletter(db, member.sub)]);
  return {
    title: getInstance(context).getFixedT(locale, "profile")("editTitle"),
    filled: profile !== null && isProfileFilled({ email: member.email, ...profile }),
    // The form starts from what is stored; a member who never filled the account-info step starts empty.
    defaultValue: {
      familyName: profile?.familyName ?? "",
      givenName: profile?.givenName ?? "",
      birthYear: profile?.birthYear?.toString() ?? "",
      country: profile?.country ?? "",
      // A stored prefecture goes to the control its country shows: the list when it names one of Japan's.
      prefecture: profile?.country === JAPAN ? (listedPrefectureOf(profile.prefecture) ?? "") : "",
      region: profile?.country === JAPAN ? "" : (profile?.prefecture ?? ""),
      occupation: profile?.occupation ?? "",
      organization: profile?.organization ?? "",
      preferredLanguage: profile?.preferredLanguage ?? locale,
      receivesNewsletter: newsletter ? "on" : "",
    },
    countries: countryChoices(locale, t("options.otherCountry")),
    prefectures: prefectureChoices(getInstance(context).getFixedT(locale, "prefectures")),
    translations: loadTranslations(context, [
      "profile",
      // The profile fields' labels and choices, not the rest of the sign-up flow's texts (the questionnaire's).
      { namespace: "signUp", keys: PROFILE_FIELD_KEYS },
      FORM_FIELD_TEXTS,
    ]),
    constraint: formConstraint(ProfileFormSchema),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  const locale = getLocale(context);
  return handleFormPost(
    context,
    await request.formData(),
    {
      schema: ProfileFormSchema,
      // Every edit is a Cognito call from the quota every member's sign-in shares, so one member cannot throttle
      // everyone's sign-in.
      attemptLimit: () => ({ action: "profileUpdate", subject: member.sub }),
    },
    async (value) => {
      // Cognito refused or is unavailable: a message on the form (role=alert), what was typed kept; nothing stored.
      const { receivesNewsletter: newsletterBox, ...profile } = withStoredPrefecture(value);
      const update = await updateProfile(servicesOf(context), {
        sub: member.sub,
        profile,
        receivesNewsletter: newsletterBox === "on",
      });
      // The spec has two toasts: "profile changed" for the member's details, "Changes are saved" for a setting alone.
      const toast = update === "membershipInfo" ? "profileChanged" : "changesSaved";
      return getToastUtils(context).redirectWithSuccess(pathFor("my-profile", locale), toast);
    },
  );
}

/** The fields and their rules are sign-up's (ProfileFormSchema); the questionnaire is not asked again. */
export default function ProfileEditPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("profile");
  const { locale } = useRootData();
  const navigation = useNavigation();
  // Validated on the server only, like sign-up's account-info step.
  const [form, fields] = useSchemaForm<typeof ProfileFormSchema>(loaderData.constraint, actionData?.result, {
    defaultValue: loaderData.defaultValue,
  });
  return (
    <section className="content auth-page">
      <h1>{t("editTitle")}</h1>
      {loaderData.filled ? null : <p className="notice">{t("notFilled")}</p>}
      <p>{t("editLead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <ProfileFields
          fields={fields}
          countries={loaderData.countries}
          prefectures={loaderData.prefectures}
          moreFieldsFollow={false}
        />
        <fieldset className="form-fieldset">
          <legend>{t("newsletter.title")}</legend>
          <CheckboxField
            label={t("newsletter.receive")}
            hint={t("newsletter.hint")}
            errors={fields.receivesNewsletter.errors}
            inputProps={getInputProps(fields.receivesNewsletter, { type: "checkbox" })}
          />
        </fieldset>
        <Button pending={navigation.state === "submitting"} block>
          {t("submit")}
        </Button>
      </Form>
      <p>
        <AppLink to={pathFor("my-profile", locale)}>{t("back")}</AppLink>
      </p>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
