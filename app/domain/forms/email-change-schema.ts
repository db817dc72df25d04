import { z } from "zod";
import { EmailSchema } from "./field-schemas";

/** A signed-in member's e-mail change: the new address, mailed a link to confirm it. */
export const EmailChangeSchema = z.object({ email: EmailSchema });
