import { z } from "zod";

/** The dev tools' session clock: how many minutes to move this session's password time back (at most a day). */
export const PasswordTimeShiftSchema = z.object({
  minutes: z.coerce
    .number("validation.inputError")
    .int("validation.inputError")
    .min(1, "validation.inputError")
    .max(24 * 60, "validation.inputError"),
});
