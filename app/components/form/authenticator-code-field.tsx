import { type FieldMetadata, getInputProps } from "@conform-to/react";
import type { ReactNode } from "react";
import { InputField } from "./fields";

/**
 * Where a member types the authenticator app's code (its set-up, the sign-in's code step, the password change):
 * `one-time-code` lets the browser or the app fill it in, and the numeric keyboard opens on phones.
 */
export function AuthenticatorCodeField({
  label,
  field,
  hint,
  enterKeyHint,
}: {
  label: ReactNode;
  field: FieldMetadata<string>;
  hint?: ReactNode;
  /** "go" where it is the last field before signing in, "done" where it ends a form. */
  enterKeyHint: "go" | "done";
}) {
  return (
    <InputField
      label={label}
      hint={hint}
      errors={field.errors}
      inputProps={{
        ...getInputProps(field, { type: "text" }),
        inputMode: "numeric",
        autoComplete: "one-time-code",
        enterKeyHint,
      }}
    />
  );
}
