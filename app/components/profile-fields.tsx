import { type FieldMetadata, getInputProps, getSelectProps } from "@conform-to/react";
import type { z } from "zod";
import { InputField, type SelectOption, SelectField } from "~/components/form/fields";
import { useRootData } from "~/components/use-root-data";
import { OCCUPATIONS, type ProfileSchema } from "~/domain/auth-schemas";
import { useTranslation } from "~/i18n/use-translation";

type ProfileInput = z.input<typeof ProfileSchema>;
// The form's own schema is left open: sign-up's and profile edit's forms differ.
type ProfileFieldsMetadata = {
  [Key in keyof ProfileInput]-?: FieldMetadata<ProfileInput[Key], Record<string, unknown>, string[]>;
};

/**
 * The profile's fields (ProfileSchema), asked at sign-up's account-info step and changed on profile edit.
 * Texts are sign-up's ("signUp" namespace), which both pages' loaders send.
 */
export function ProfileFields({
  fields,
  countries,
}: {
  fields: ProfileFieldsMetadata;
  /** Country names come from the server, so the server's and the browser's text cannot differ at hydration. */
  countries: readonly SelectOption[];
}) {
  const { t } = useTranslation("signUp");
  const { t: tf } = useTranslation("forms");
  const { locale } = useRootData();
  const select = tf("validation.selectRequired");
  const text = (field: FieldMetadata<string | undefined, Record<string, unknown>, string[]>, label: string) => (
    <InputField label={label} errors={field.errors} inputProps={getInputProps(field, { type: "text" })} />
  );
  return (
    <>
      <p className="notice" id="real-names-note">
        {t("account.realNames")}
      </p>
      {text(fields.familyName, t("account.familyName"))}
      {text(fields.givenName, t("account.givenName"))}
      <InputField
        label={t("account.birthYear")}
        hint={t("account.birthYearHint")}
        errors={fields.birthYear.errors}
        inputProps={{
          ...getInputProps(fields.birthYear, { type: "text" }),
          inputMode: "numeric",
          autoComplete: "bday-year",
        }}
      />
      <SelectField
        label={t("account.country")}
        errors={fields.country.errors}
        selectProps={getSelectProps(fields.country)}
        options={countries}
        placeholder={select}
      />
      {text(fields.prefecture, t("account.prefecture"))}
      <SelectField
        label={t("account.occupation")}
        errors={fields.occupation.errors}
        selectProps={getSelectProps(fields.occupation)}
        options={OCCUPATIONS.map((value) => ({ value, label: t(`options.occupation.${value}`) }))}
        placeholder={select}
      />
      {text(fields.organization, t("account.organization"))}
      <SelectField
        label={t("account.preferredLanguage")}
        errors={fields.preferredLanguage.errors}
        selectProps={{
          ...getSelectProps(fields.preferredLanguage),
          defaultValue: fields.preferredLanguage.initialValue ?? locale,
        }}
        options={(["ja", "en"] as const).map((value) => ({ value, label: t(`options.language.${value}`) }))}
      />
    </>
  );
}
