import { z } from "zod";
import { SIBLING_SERVICES } from "~/config.server";
import { EmailSchema } from "./field-schemas";
import { CONFIRMED_STAFF_ACTIONS } from "./form-choices";

/*
 * The staff pages' forms. Messages are keys of the "forms" namespace, or namespaced ("adminImport:…").
 */

/** The "open a member" form's one field: a sub or an e-mail address. */
export const OpenMemberSchema = z.object({ member: z.string().trim().min(1).max(320) });

/** A member's page, the confirmation panel's form: which action the admin confirmed. */
export const StaffActionSchema = z.object({ intent: z.enum(CONFIRMED_STAFF_ACTIONS) });

/** A member's page, the e-mail change form: first reviewed (old → new shown), then confirmed with the same address. */
export const StaffEmailChangeSchema = z.object({
  intent: z.enum(["review-email-change", "email-change"]),
  email: EmailSchema,
});

/**
 * The CSV import's upload: a file to check (the dry run). A browser posts a file input left empty as a nameless,
 * empty part; a chosen file that is empty has a name, and the dry run reports it as an empty file.
 */
export const ImportFileSchema = z.object({
  file: z
    .instanceof(File, { message: "adminImport:upload.fileRequired" })
    .refine((file) => file.name !== "" || file.size > 0, { message: "adminImport:upload.fileRequired" }),
});

/** The checked file's panel: start its job, or discard it. */
export const ValidatedImportJobSchema = z.object({ intent: z.enum(["start", "discard"]), jobId: z.uuid() });

/** An import job's page: cancel the job. */
export const CancelImportSchema = z.object({ intent: z.literal("cancel") });

/** Japan has one offset all year (no daylight saving time). */
const JAPAN_OFFSET_MS = 9 * 60 * 60 * 1000;
const DATE_TIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/** A datetime-local input's value ("2026-12-03T09:30", seconds optional) as Japan time, as `YYYY-MM-DDTHH:mm`. */
export function toJapanDateTimeLocal(instant: Date): string {
  return new Date(instant.getTime() + JAPAN_OFFSET_MS).toISOString().slice(0, 16);
}

/**
 * A datetime-local input read as Japan time. A date the calendar lacks (February 30th) is refused rather than rolled
 * over: the instant must read back as what was typed.
 */
const JapanDateTimeSchema = z
  .string({ error: "validation.required" })
  .trim()
  .min(1, { message: "validation.required", abort: true })
  .regex(DATE_TIME_LOCAL, "adminEvents:errors.dateTime")
  .transform((value, context) => {
    const withSeconds = value.length === 16 ? `${value}:00` : value;
    const instant = new Date(`${withSeconds}+09:00`);
    if (
      Number.isNaN(instant.getTime()) ||
      new Date(instant.getTime() + JAPAN_OFFSET_MS).toISOString().slice(0, 19) !== withSeconds
    ) {
      context.addIssue({ code: "custom", message: "adminEvents:errors.dateTime" });
      return z.NEVER;
    }
    return instant;
  });

const SiblingServiceSchema = z.enum(SIBLING_SERVICES, { error: "validation.selectError" });

/** The deliveries page, a delivery row's button: send that event to that service again. */
export const RedeliverEventSchema = z.object({
  intent: z.literal("redeliver"),
  service: SiblingServiceSchema,
  eventId: z.uuid("validation.inputError"),
  channel: z.enum(["webhook", "logout"], { error: "validation.selectError" }),
});

/** The deliveries page, a service's "redeliver since": every event recorded at or after the time. */
export const RedeliverSinceSchema = z.object({
  intent: z.literal("redeliver-since"),
  service: SiblingServiceSchema,
  since: JapanDateTimeSchema,
});

/** The deliveries page, a disabled service's "enable": deliveries resume with the events recorded from the time. */
export const EnableEndpointSchema = z.object({
  intent: z.literal("enable"),
  service: SiblingServiceSchema,
  from: JapanDateTimeSchema,
});
