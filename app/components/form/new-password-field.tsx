import { type FieldMetadata, getInputProps } from "@conform-to/react";
import type { ReactNode } from "react";
import { useTranslation } from "~/i18n/use-translation";
import { InputField } from "./fields";

/**
 * Where a member chooses a password (sign-up, first sign-in, reset, change): `new-password` has the browser's
 * password manager offer a strong one and save it, and the pool's rules are read with the field.
 */
export function NewPasswordField({
  label,
  field,
  enterKeyHint = "done",
}: {
  label: ReactNode;
  field: FieldMetadata<string>;
  /** "done" where it is the form's last text field; sign-up's agreements follow it; "next" before another field. */
  enterKeyHint?: "done" | "send" | "next";
}) {
  const { t } = useTranslation("forms");
  return (
    <InputField
      label={label}
      hint={t("form.newPasswordRules")}
      errors={field.errors}
      inputProps={{
        ...getInputProps(field, { type: "password" }),
        autoComplete: "new-password",
        inputMode: "text",
        enterKeyHint,
      }}
    />
  );
}
