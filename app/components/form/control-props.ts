import type { InputHTMLAttributes, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";

/**
 * Conform's prop helpers (getFormProps, getInputProps, getSelectProps, getTextareaProps), for the metadata
 * useSchemaForm builds: the same attributes under the same names, so the call sites read as Conform's documentation
 * does. Conform's own were 0.8 kB gz of every form page, half of it the object-spread helpers its build compiles in
 * (README: page weight); tests/unit/form-kit.test.ts checks these give what Conform's give.
 */

/** What the helpers read of a field (Conform's FieldMetadata has it all). */
type ControlState = {
  id: string;
  name: string;
  formId: string;
  errorId: string;
  errors?: readonly string[] | undefined;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  min?: string | number;
  max?: string | number;
  step?: string | number;
  multiple?: boolean;
  initialValue?: unknown;
};

/** `initialValue?.toString()`, as Conform reads it. */
const asText = (value: unknown) => (value === undefined || value === null ? undefined : String(value));

/** Like Conform, no undefined members: a value the call site spread before them is not overwritten by nothing. */
function definedOnly<Props extends object>(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([, value]) => value !== undefined)) as Props;
}

function controlProps(field: ControlState) {
  const invalid = field.errors !== undefined;
  return {
    id: field.id,
    name: field.name,
    form: field.formId,
    required: field.required || undefined,
    "aria-invalid": invalid || undefined,
    "aria-describedby": invalid ? field.errorId : undefined,
  };
}

export function getFormProps(form: {
  id: string;
  errorId: string;
  errors?: readonly string[] | undefined;
  noValidate: boolean;
}): { id: string; noValidate: boolean; "aria-describedby"?: string } {
  return definedOnly({
    id: form.id,
    noValidate: form.noValidate,
    "aria-describedby": form.errors !== undefined ? form.errorId : undefined,
  });
}

/** A checkbox or radio posts `value` ("on" by default) and starts checked when the initial value is (or holds) it. */
export function getInputProps(
  field: ControlState,
  options: { type: NonNullable<InputHTMLAttributes<HTMLInputElement>["type"]>; value?: string },
): InputHTMLAttributes<HTMLInputElement> {
  const props = {
    ...controlProps(field),
    type: options.type,
    minLength: field.minLength,
    maxLength: field.maxLength,
    min: field.min,
    max: field.max,
    step: field.step,
    multiple: field.multiple,
  };
  if (options.type === "checkbox" || options.type === "radio") {
    const value = options.value ?? "on";
    const initial = field.initialValue;
    return definedOnly({
      ...props,
      value,
      defaultChecked: Array.isArray(initial) ? initial.includes(value) : initial === value,
    });
  }
  return definedOnly({
    ...props,
    defaultValue: typeof field.initialValue === "string" ? field.initialValue : undefined,
  });
}

export function getSelectProps(field: ControlState): SelectHTMLAttributes<HTMLSelectElement> {
  const initial = field.initialValue;
  return definedOnly({
    ...controlProps(field),
    multiple: field.multiple,
    defaultValue: Array.isArray(initial) ? initial.map((item) => `${item ?? ""}`) : asText(initial),
  });
}

export function getTextareaProps(field: ControlState): TextareaHTMLAttributes<HTMLTextAreaElement> {
  return definedOnly({
    ...controlProps(field),
    minLength: field.minLength,
    maxLength: field.maxLength,
    defaultValue: asText(field.initialValue),
  });
}
