import { type FieldMetadata, getInputProps, getSelectProps } from "@conform-to/react";
import { useState } from "react";
import { useHydrated } from "./use-hydrated";
import type { z } from "zod";
import { InputField, type SelectOption, SelectField } from "~/components/form/fields";
import { useRootData } from "~/components/use-root-data";
import type { ProfileFormSchema } from "~/domain/forms/profile-schemas";
import { OCCUPATIONS } from "~/domain/forms/form-choices";
import { JAPAN } from "~/domain/forms/prefectures";
import { useTranslation } from "~/i18n/use-translation";

// The profile's fields; profile edit's newsletter choice is its own control, outside this component.
type ProfileInput = Omit<z.input<typeof ProfileFormSchema>, "receivesNewsletter">;
// The form's own schema is left open: sign-up's and profile edit's forms differ.
type ProfileFieldsMetadata = {
  [Key in keyof ProfileInput]-?: FieldMetadata<ProfileInput[Key], Record<string, unknown>, string[]>;
};
type TextFieldMetadata = FieldMetadata<string | undefined, Record<string, unknown>, string[]>;

/**
 * The profile's fields (ProfileFormSchema), asked at sign-up's account-info step and changed on profile edit.
 * Texts are sign-up's ("signUp" namespace), which both pages' loaders send, with the country and prefecture choices.
 * The prefecture is a list for Japan and free text elsewhere: without JavaScript both are shown, each saying whom it
 * is for, and the server takes the one the country calls for; with JavaScript only that one is on the page.
 */
export function ProfileFields({
  fields,
  countries,
  prefectures,
  moreFieldsFollow,
}: {
  fields: ProfileFieldsMetadata;
  /** Country names come from the server, so the server's and the browser's text cannot differ at hydration. */
  countries: readonly SelectOption[];
  /** Japan's 47 (prefectureChoices): the value stored and the name in the page's language. */
  prefectures: readonly SelectOption[];
  /** Whether text fields follow these in the form (the questionnaire): the keyboard's Enter key says "next". */
  moreFieldsFollow: boolean;
}) {
  const { t } = useTranslation("signUp");
  const { t: tf } = useTranslation("forms");
  const { locale } = useRootData();
  const hydrated = useHydrated();
  const [country, setCountry] = useState(fields.country.initialValue ?? "");
  // Most members live in Japan: until a country is chosen, the list is what they see.
  const inJapan = country === JAPAN || country === "";
  const select = tf("validation.selectRequired");
  const text = (
    field: TextFieldMetadata,
    label: string,
    autoComplete: string,
    options: { enterKeyHint?: "next" | "done"; hint?: string } = {},
  ) => (
    <InputField
      label={label}
      hint={options.hint}
      errors={field.errors}
      inputProps={{
        ...getInputProps(field, { type: "text" }),
        autoComplete,
        inputMode: "text",
        enterKeyHint: options.enterKeyHint ?? "next",
      }}
    />
  );
  return (
    <>
      <p className="notice" id="real-names-note">
        {t("account.realNames")}
      </p>
      {text(fields.familyName, t("account.familyName"), "family-name")}
      {text(fields.givenName, t("account.givenName"), "given-name")}
      <InputField
        label={t("account.birthYear")}
        hint={t("account.birthYearHint")}
        errors={fields.birthYear.errors}
        inputProps={{
          ...getInputProps(fields.birthYear, { type: "text" }),
          inputMode: "numeric",
          autoComplete: "bday-year",
          enterKeyHint: "next",
          maxLength: 4,
        }}
      />
      <SelectField
        label={t("account.country")}
        errors={fields.country.errors}
        selectProps={{
          ...getSelectProps(fields.country),
          autoComplete: "country",
          onChange: (event) => setCountry(event.currentTarget.value),
        }}
        options={countries}
        placeholder={select}
      />
      {!hydrated || inJapan ? (
        <SelectField
          label={t("account.prefectureInJapan")}
          hint={hydrated ? undefined : t("account.prefectureInJapanHint")}
          errors={fields.prefecture.errors}
          selectProps={{ ...getSelectProps(fields.prefecture), required: hydrated, autoComplete: "address-level1" }}
          options={prefectures}
          placeholder={select}
        />
      ) : null}
      {!hydrated || !inJapan ? (
        <InputField
          label={t("account.region")}
          hint={hydrated ? undefined : t("account.regionHint")}
          errors={fields.region.errors}
          inputProps={{
            ...getInputProps(fields.region, { type: "text" }),
            required: hydrated,
            autoComplete: "address-level1",
            inputMode: "text",
            enterKeyHint: "next",
          }}
        />
      ) : null}
      <SelectField
        label={t("account.occupation")}
        errors={fields.occupation.errors}
        selectProps={{ ...getSelectProps(fields.occupation), autoComplete: "off" }}
        options={OCCUPATIONS.map((value) => ({ value, label: t(`options.occupation.${value}`) }))}
        placeholder={select}
      />
      {text(fields.organization, t("account.organization"), "organization", {
        enterKeyHint: moreFieldsFollow ? "next" : "done",
      })}
      <SelectField
        label={t("account.preferredLanguage")}
        errors={fields.preferredLanguage.errors}
        selectProps={{
          ...getSelectProps(fields.preferredLanguage),
          defaultValue: fields.preferredLanguage.initialValue ?? locale,
          // The autofill token for a preferred language, whose values are language tags like these.
          autoComplete: "language",
        }}
        options={(["ja", "en"] as const).map((value) => ({ value, label: t(`options.language.${value}`) }))}
      />
    </>
  );
}
