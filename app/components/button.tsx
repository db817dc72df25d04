import type { ButtonHTMLAttributes } from "react";

export type ButtonVariant = "primary" | "secondary" | "danger" | "text";

type ButtonLook = { variant?: ButtonVariant; block?: boolean; className?: string };

/** The button classes, also for links that look like buttons (<AppLink className={buttonClassName(…)}>). */
export function buttonClassName({ variant = "primary", block = false, className }: ButtonLook = {}): string {
  return ["button", `button--${variant}`, block ? "button--block" : "", className ?? ""].filter(Boolean).join(" ");
}

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> &
  ButtonLook & {
    /** The form is being submitted: the button is disabled so a double click cannot post twice. */
    pending?: boolean;
  };

export function Button({
  variant,
  block,
  className,
  pending = false,
  disabled,
  type = "submit",
  ...props
}: ButtonProps) {
  return (
    <button
      {...props}
      type={type}
      disabled={disabled || pending}
      aria-busy={pending || undefined}
      className={buttonClassName({
        variant,
        block,
        className: pending ? `button--pending ${className ?? ""}` : className,
      })}
    />
  );
}
