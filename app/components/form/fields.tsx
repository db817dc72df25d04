import {
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useId,
} from "react";
import { useTranslation } from "~/i18n/use-translation";
import { useMessageTranslator } from "../use-message-translator";

type FieldBaseProps = {
  label: ReactNode;
  /** Messages from the form's action, translated there; a message key (a staff filter's) is translated here. */
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
    hasErrors,
    describedBy: describedBy || undefined,
    controlProps: {
      id: controlId,
      "aria-invalid": hasErrors || undefined,
      "aria-describedby": describedBy || undefined,
    },
  };
}

type FieldIds = ReturnType<typeof useFieldIds>;

function Hint({ ids, hint }: { ids: FieldIds; hint: ReactNode }) {
  return hint ? (
    <p className="form-field__hint" id={ids.hintId}>
      {hint}
    </p>
  ) : null;
}

/** The "required" badge after a label or a legend: shown where the form refuses to go on without an answer. */
export function RequiredMarker() {
  const { t } = useTranslation("forms");
  return <span className="form-field__required">{t("form.required")}</span>;
}

function Field({
  label,
  errors,
  hint,
  className,
  required,
  ids,
  children,
}: FieldBaseProps & { required: boolean; ids: FieldIds; children: ReactNode }) {
  return (
    <div
      className={["form-field", ids.hasErrors ? "form-field--invalid" : "", className ?? ""].filter(Boolean).join(" ")}
    >
      <label className="form-field__label" htmlFor={ids.controlId}>
        {label}
        {required ? <RequiredMarker /> : null}
      </label>
      <Hint ids={ids} hint={hint} />
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

/**
 * The id of the form's error summary (FormAlert), which a refused post moves the focus to. Here rather than beside
 * useSchemaForm: pages with fields but no schema form (the staff list's filters) load this module only.
 */
export const errorSummaryIdOf = (formId: string) => `${formId}-summary`;

type FormAlertProps = {
  form: {
    id: string;
    errorId: string;
    errors?: readonly string[] | undefined;
    allErrors?: Readonly<Record<string, readonly string[] | null | undefined>>;
  };
};

/**
 * The form's error summary (GOV.UK's pattern), at the top of the form: after a refused post the focus, and with it
 * the view, moves here, whether the reply came as a new page (autofocus) or without a page load (useSchemaForm), so
 * a member who pressed the button at the end of a long form sees what went wrong (a refusal from Cognito, a service
 * down, a rate limit) and, when fields were refused, a link to the first of them. The alert region inside is always
 * there, empty until needed: the form's aria-describedby points at it, as Conform's does.
 */
export function FormAlert({ form }: FormAlertProps) {
  const { t } = useTranslation("forms");
  const refusedFields = Object.entries(form.allErrors ?? {})
    .filter(([name, messages]) => name !== "" && messages?.length)
    .map(([name]) => name);
  const refused = Boolean(form.errors?.length) || refusedFields.length > 0;
  return (
    <div
      id={errorSummaryIdOf(form.id)}
      className={refused ? "error-summary" : undefined}
      tabIndex={refused ? -1 : undefined}
      // Without JavaScript the reply is a new page: the browser focuses the summary as it loads.
      autoFocus={refused}
    >
      <div role="alert" id={form.errorId}>
        {refused ? (
          <>
            <h2 className="error-summary__title">{t("form.errorSummary.title")}</h2>
            <ErrorList errors={form.errors} />
            {refusedFields.length ? (
              <p className="error-summary__fields">
                <a href={`#${form.id}-${refusedFields[0]}`}>
                  {t("form.errorSummary.fields", { count: refusedFields.length })}
                </a>
              </p>
            ) : null}
          </>
        ) : null}
      </div>
    </div>
  );
}

const controlClassName = (className: string | undefined) => `form-field__control ${className ?? ""}`.trim();

/** A labelled <input> with its hint and errors wired for assistive technology. */
export function InputField({
  inputProps,
  ...field
}: FieldBaseProps & { inputProps: InputHTMLAttributes<HTMLInputElement> }) {
  const ids = useFieldIds(inputProps.id, field.hint, field.errors);
  return (
    <Field {...field} ids={ids} required={Boolean(inputProps.required)}>
      <input {...inputProps} {...ids.controlProps} className={controlClassName(inputProps.className)} />
    </Field>
  );
}

/**
 * The member's address on a step that already knows it (a reset code's, a first sign-in's): not submitted, since
 * the server has it from the step's cookie, but shown, and there so a password manager files the new password under
 * the right username.
 */
export function ReadOnlyEmailField({ label, email }: { label: ReactNode; email: string }) {
  return (
    <InputField
      label={label}
      inputProps={{
        type: "email",
        value: email,
        readOnly: true,
        autoComplete: "username",
        inputMode: "email",
        enterKeyHint: "next",
      }}
    />
  );
}

/** A labelled <textarea>, wired like InputField. */
export function TextareaField({
  textareaProps,
  ...field
}: FieldBaseProps & { textareaProps: TextareaHTMLAttributes<HTMLTextAreaElement> }) {
  const ids = useFieldIds(textareaProps.id, field.hint, field.errors);
  return (
    <Field {...field} ids={ids} required={Boolean(textareaProps.required)}>
      <textarea {...textareaProps} {...ids.controlProps} className={controlClassName(textareaProps.className)} />
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
      <select {...selectProps} {...ids.controlProps} className={controlClassName(selectProps.className)}>
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

/**
 * One checkbox (a consent, an agreement): the label wraps the box. A link in the label (the terms' name) is followed
 * when clicked and leaves the box as it was (HTML's label activation skips interactive content).
 */
export function CheckboxField({
  label,
  errors,
  hint,
  inputProps,
}: Omit<FieldBaseProps, "className"> & { inputProps: InputHTMLAttributes<HTMLInputElement> }) {
  const ids = useFieldIds(inputProps.id, hint, errors);
  return (
    <div className="form-check">
      <label>
        <input {...inputProps} {...ids.controlProps} type="checkbox" /> {label}
      </label>
      <Hint ids={ids} hint={hint} />
      <ErrorList id={ids.errorId} errors={errors} />
    </div>
  );
}

/** What a group needs of its field; Conform's field metadata has it. */
type ChoiceField<Value> = {
  /** The error list's id (`${id}-error`) is derived from it, as Conform's errorId is. */
  id: string;
  name: string;
  errors?: readonly string[] | undefined;
  initialValue?: Value | undefined;
};

type ChoiceGroupProps = {
  legend: ReactNode;
  options: readonly SelectOption[];
  hint?: ReactNode;
  /** At least one answer is required: no single box is, so the legend carries the marker. */
  required?: boolean;
};

/** A fieldset of same-named boxes or radios; the fieldset, not each control, is described by the errors. */
function ChoiceGroup({
  type,
  legend,
  field,
  options,
  hint,
  required = false,
  isChecked,
}: ChoiceGroupProps & {
  type: "checkbox" | "radio";
  field: ChoiceField<unknown>;
  isChecked: (value: string) => boolean;
}) {
  const ids = useFieldIds(field.id, hint, field.errors);
  return (
    <fieldset className="form-fieldset" aria-describedby={ids.describedBy}>
      <legend>
        {legend}
        {required ? <RequiredMarker /> : null}
      </legend>
      <Hint ids={ids} hint={hint} />
      {options.map((option, index) => (
        <label key={option.value} className="form-check">
          <input
            // The first box carries the field's id, which the error summary's link leads to.
            id={index === 0 ? ids.controlId : undefined}
            type={type}
            name={field.name}
            value={option.value}
            defaultChecked={isChecked(option.value)}
          />{" "}
          {option.label}
        </label>
      ))}
      <ErrorList id={ids.errorId} errors={field.errors} />
    </fieldset>
  );
}

/**
 * Several answers to one question, posted under one name. A reply's initial value is a string when one box was
 * ticked and a list when several were.
 */
export function CheckboxGroupField({
  field,
  ...group
}: ChoiceGroupProps & { field: ChoiceField<string | readonly (string | undefined)[]> }) {
  const chosen = new Set([field.initialValue].flat());
  return <ChoiceGroup {...group} field={field} type="checkbox" isChecked={(value) => chosen.has(value)} />;
}

/** One answer out of several. */
export function RadioGroupField({ field, ...group }: ChoiceGroupProps & { field: ChoiceField<string> }) {
  return <ChoiceGroup {...group} field={field} type="radio" isChecked={(value) => value === field.initialValue} />;
}
