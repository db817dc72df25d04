import { z } from "zod";
import { CurrentPasswordSchema } from "./field-schemas";

/** The password step before a sensitive change: the member's current password. */
export const ReauthenticationSchema = z.object({ password: CurrentPasswordSchema });
