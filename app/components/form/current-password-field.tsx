import { type FieldMetadata, getInputProps } from "@conform-to/react";
import type { ReactNode } from "react";
import { InputField } from "./fields";

/**
 * Where a member types the password they have (signing in, confirming it, changing it, cancelling): a password
 * manager fills it in from `current-password`, and the field is never sent back filled after a failed post.
 */
export function CurrentPasswordField({
  label,
  field,
  enterKeyHint,
}: {
  label: ReactNode;
  field: FieldMetadata<string>;
  /** "go" where it is the last field before signing in, "next" before more fields, "done" where it ends a form. */
  enterKeyHint: "go" | "next" | "done";
}) {
  return (
    <InputField
      label={label}
      errors={field.errors}
      inputProps={{
        ...getInputProps(field, { type: "password" }),
        autoComplete: "current-password",
        inputMode: "text",
        enterKeyHint,
      }}
    />
  );
}
