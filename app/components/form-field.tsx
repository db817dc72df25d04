import { type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, useId } from "react";
import { useTranslation } from "~/i18n/use-translation";
import { useMessageTranslator } from "./use-message-translator";

type FieldBaseProps = {
  label: ReactNode;
  /** Message keys (e.g. "validation.required") from the form's Zod schema; translated here. */
  errors?: readonly string[] | undefined;
  /** Help shown under the label and read with the control. */
  hint?: ReactNode;
  className?: string;
};

/**
 * Ids follow Conform's convention (`${id}-error`, `${id}-description`), so props from Conform's getInputProps and
 * these elements agree. aria-describedby is set here, once, from what is actually on screen.
 */
function useFieldIds(id: string | undefined, hint: ReactNode, errors: readonly string[] | undefined) {
  const fallbackId = useId();
  const controlId = id ?? fallbackId;
  const errorId = `${controlId}-error`;
  const hintId = `${controlId}-description`;
  const hasErrors = (errors?.length ?? 0) > 0;
  const describedBy = [hint ? hintId : null, hasErrors ? errorId : null].filter(Boolean).join(" ");
  return {
    controlId,
    errorId,
    hintId,
    controlProps: {
      id: controlId,
      "aria-invalid": hasErrors || undefined,
      "aria-describedby": describedBy || undefined,
    },
  };
}

function Field({
  label,
  errors,
  hint,
  className,
  required,
  ids,
  children,
}: FieldBaseProps & { required: boolean; ids: ReturnType<typeof useFieldIds>; children: ReactNode }) {
  const { t } = useTranslation("forms");
  const invalid = (errors?.length ?? 0) > 0;
  return (
    <div className={["form-field", invalid ? "form-field--invalid" : "", className ?? ""].filter(Boolean).join(" ")}>
      <label className="form-field__label" htmlFor={ids.controlId}>
        {label}
        {required ? <span className="form-field__required">{t("form.required")}</span> : null}
      </label>
      {hint ? (
        <p className="form-field__hint" id={ids.hintId}>
          {hint}
        </p>
      ) : null}
      {children}
      <ErrorList id={ids.errorId} errors={errors} />
    </div>
  );
}

/** The list of a field's (or a whole form's) error messages; renders nothing when there are none. */
export function ErrorList({ id, errors }: { id?: string; errors?: readonly string[] | undefined }) {
  const translate = useMessageTranslator();
  if (!errors?.length) return null;
  return (
    <ul className="error-list" id={id}>
      {errors.map((error) => (
        <li key={error} className="error-list__item">
          {translate(error)}
        </li>
      ))}
    </ul>
  );
}

/** A labelled <input> with its hint and errors wired for assistive technology. */
export function FormField({
  inputProps,
  ...field
}: FieldBaseProps & { inputProps: InputHTMLAttributes<HTMLInputElement> }) {
  const ids = useFieldIds(inputProps.id, field.hint, field.errors);
  return (
    <Field {...field} ids={ids} required={Boolean(inputProps.required)}>
      <input
        {...inputProps}
        {...ids.controlProps}
        className={`form-field__control ${inputProps.className ?? ""}`.trim()}
      />
    </Field>
  );
}

export type SelectOption = { value: string; label: string };

/** A labelled <select>; the empty first option ("Please select") is what a required select rejects. */
export function SelectField({
  selectProps,
  options,
  placeholder,
  ...field
}: FieldBaseProps & {
  selectProps: SelectHTMLAttributes<HTMLSelectElement>;
  options: readonly SelectOption[];
  placeholder?: string;
}) {
  const ids = useFieldIds(selectProps.id, field.hint, field.errors);
  return (
    <Field {...field} ids={ids} required={Boolean(selectProps.required)}>
      <select
        {...selectProps}
        {...ids.controlProps}
        className={`form-field__control ${selectProps.className ?? ""}`.trim()}
      >
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}
