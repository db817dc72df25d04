import { z } from "zod";
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
