import { redirect } from "react-router";
import { PasskeyDeleteSchema, PasskeyRegistrationSchema, PasskeyRenameSchema } from "~/domain/forms/passkey-schemas";
import {
  addPasskey,
  passkeyCreationOptions,
  passkeyLabel,
  removePasskey,
  renamePasskey,
} from "~/domain/account/passkeys.server";
import { domainErrorOf, httpStatusOf, messageKeyOf } from "~/errors/error-responses.server";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { requireMember } from "~/middleware/require-member.server";
import { requireRecentPassword } from "~/middleware/require-recent-password.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/my-security-passkeys";

/** Someone who opens the address itself gets the page the passkey forms are on. */
export function loader({ context }: Route.LoaderArgs) {
  return redirect(pathFor("my-security", getLocale(context)));
}

/**
 * The passkey forms of /my/security/. `options` (the add button's script, by fetch) answers Cognito's creation
 * options as JSON (or where the password step is, or a message); `add` (the script's form, the browser's result in
 * a hidden input) stores the passkey; `rename` and `delete` are plain forms that work without JavaScript. Adding and deleting need the password typed
 * on this session within 10 minutes: otherwise the password step, and back to /my/security/. Each answer but
 * `options` goes back to /my/security/ with a toast; every refusal is a toast too, never a 500.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const member = requireMember(context, request);
  const locale = getLocale(context);
  const here = pathFor("my-security", locale);
  const services = servicesOf(context);
  const toasts = getToastUtils(context);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const change = {
    sub: member.sub,
    email: member.email,
    accessToken: member.accessToken,
    clientIp: clientIpOf(context),
    userAgent: request.headers.get("User-Agent"),
    locale,
  };
  const refused = (error: unknown) => toasts.redirectWithError(here, messageKeyOf(domainErrorOf(error)));

  if (intent === "rename") {
    const parsed = PasskeyRenameSchema.safeParse(Object.fromEntries(formData));
    if (!parsed.success) return toasts.redirectWithError(here, "toasts:invalidInput");
    const renamed = await renamePasskey(services.db, { sub: member.sub, ...parsed.data });
    return renamed
      ? toasts.redirectWithSuccess(here, "passkeys:toasts.renamed")
      : toasts.redirectWithError(here, "passkeys:toasts.notFound");
  }
  if (intent !== "options" && intent !== "add" && intent !== "delete") {
    return toasts.redirectWithError(here, "toasts:invalidInput");
  }
  if (intent === "options") {
    // The script's fetch: the password step's address as JSON, for the script to go to, rather than a redirect.
    const passwordStep = await requireRecentPassword(context, request, member, { returnTo: here }).then(
      () => null,
      (thrown: unknown) => {
        if (thrown instanceof Response && thrown.headers.has("Location")) return thrown.headers.get("Location")!;
        throw thrown;
      },
    );
    if (passwordStep) return Response.json({ redirectTo: passwordStep });
    try {
      return Response.json({ options: await passkeyCreationOptions(services, member) });
    } catch (error) {
      const refusal = domainErrorOf(error);
      const t = getInstance(context).getFixedT(locale) as unknown as (key: string) => string;
      return Response.json({ error: t(messageKeyOf(refusal)) }, { status: httpStatusOf(refusal) });
    }
  }
  await requireRecentPassword(context, request, member, { returnTo: here });

  if (intent === "add") {
    const parsed = PasskeyRegistrationSchema.safeParse(Object.fromEntries(formData));
    if (!parsed.success) return toasts.redirectWithError(here, "passkeys:errors.refused");
    try {
      await addPasskey(services, { ...change, credential: parsed.data.credential });
    } catch (error) {
      return refused(error);
    }
    return toasts.redirectWithSuccess(here, "passkeys:toasts.added");
  }
  const parsed = PasskeyDeleteSchema.safeParse(Object.fromEntries(formData));
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
