import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { type RouterContextProvider, data } from "react-router";
import { PasskeyDeleteSchema, PasskeyRegistrationSchema, PasskeyRenameSchema } from "~/domain/forms/passkey-schemas";
import {
  addPasskey,
  passkeyCreationOptions,
  passkeyLabel,
  removePasskey,
  renamePasskey,
} from "~/domain/account/passkeys.server";
import { domainErrorOf, messageKeyOf } from "~/errors/error-responses.server";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { getLocale } from "~/i18n/i18n-middleware.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import { requireRecentPassword, requireServerToken } from "~/middleware/require-recent-password.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { PageRequest } from "~/routing/page-request";

/** The passkey forms' intents, which /my/security/'s action hands to `passkeyAction`. */
const PASSKEY_INTENTS = ["passkey-options", "passkey-add", "passkey-rename", "passkey-delete"] as const;
type PasskeyIntent = (typeof PASSKEY_INTENTS)[number];

export function isPasskeyIntent(intent: unknown): intent is PasskeyIntent {
  return PASSKEY_INTENTS.includes(intent as PasskeyIntent);
}

/**
 * The passkey forms of /my/security/. `passkey-options` ("Add a passkey") answers Cognito's creation options as the
 * page's action data, for the page's script to run in the browser; `passkey-add` (the script's post, the browser's
 * result in it) stores the passkey; `passkey-rename` and `passkey-delete` are plain forms that work without
 * JavaScript. Each needs the password typed on this session within 10 minutes, and adding and deleting the server
 * token it made (Cognito's passkey calls take no other): otherwise the password step, and back here. Each but the
 * options goes back to /my/security/ with a toast; a refusal is a toast too. Every post counts against the member's
 * passkey-change limit first (the spec's attempt-limit message).
 */
export async function passkeyAction(
  context: Readonly<RouterContextProvider>,
  { request, url }: PageRequest,
  input: { member: SignedInMember; formData: FormData; intent: PasskeyIntent },
) {
  const { member, formData, intent } = input;
  const locale = getLocale(context);
  const here = pathFor("my-security", locale);
  const services = servicesOf(context);
  const toasts = getToastUtils(context);
  const refused = (error: unknown) => toasts.redirectWithError(here, messageKeyOf(domainErrorOf(error)));
  const limited = await checkAttemptLimit(context, { action: "passkeyChange", subject: member.sub });
  if (limited) return toasts.redirectWithError(here, `toasts:${limited.messageKey}`);
  const fields = Object.fromEntries(formData);

  if (intent === "passkey-rename") {
    // A name is shown in mails and on the devices a member trusts: it changes behind the password step too.
    await requireRecentPassword(context, url, member, { returnTo: here });
    const parsed = PasskeyRenameSchema.safeParse(fields);
    if (!parsed.success) return toasts.redirectWithError(here, "toasts:invalidInput");
    const renamed = await renamePasskey(services.db, { sub: member.sub, ...parsed.data });
    return renamed
      ? toasts.redirectWithSuccess(here, "passkeys:toasts.renamed")
      : toasts.redirectWithError(here, "passkeys:toasts.notFound");
  }
  const token = await requireServerToken(context, url, member, { returnTo: here });
  const change = {
    sub: member.sub,
    email: member.email,
    token,
    clientIp: clientIpOf(context),
    userAgent: request.headers.get("User-Agent"),
    locale,
  };

  if (intent === "passkey-options") {
    try {
      const options = await passkeyCreationOptions(services, { token });
      return data({ passkeyCreationOptions: options as unknown as PublicKeyCredentialCreationOptionsJSON });
    } catch (error) {
      return refused(error);
    }
  }
  if (intent === "passkey-add") {
    const parsed = PasskeyRegistrationSchema.safeParse(fields);
    if (!parsed.success) return toasts.redirectWithError(here, "passkeys:errors.refused");
    try {
      await addPasskey(services, { ...change, credential: parsed.data.credential });
    } catch (error) {
      return refused(error);
    }
    return toasts.redirectWithSuccess(here, "passkeys:toasts.added");
  }
  const parsed = PasskeyDeleteSchema.safeParse(fields);
  if (!parsed.success) return toasts.redirectWithError(here, "toasts:invalidInput");
  try {
    const removed = await removePasskey(services, { ...change, credentialId: parsed.data.credentialId });
    return removed
      ? toasts.redirectWithSuccess(here, {
          message: "passkeys:toasts.removed",
          values: { name: passkeyLabel(removed) },
        })
      : toasts.redirectWithError(here, "passkeys:toasts.notFound");
  } catch (error) {
    return refused(error);
  }
}
