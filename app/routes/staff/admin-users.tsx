import { data, redirect, useNavigation } from "react-router";
import { FORM_FIELD_TEXTS } from "~/forms/schema-form.server";
import { Button } from "~/components/button";
import { AdminGetForm } from "~/components/admin/get-form";
import { InputField } from "~/components/form/fields";
import { OpenMemberSchema } from "~/domain/forms/staff-schemas";
import { findSubByEmailOrSub } from "~/domain/staff/member-detail.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/admin-users";

const OPEN_MEMBER_TEXTS = [{ namespace: "admin", keys: ["open"] }, FORM_FIELD_TEXTS] as const;

export async function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const given = OpenMemberSchema.safeParse({ member: url.searchParams.get("member") ?? "" });
  const base = {
    title: getInstance(context).t("admin:meta.open"),
    translations: loadTranslations(context, OPEN_MEMBER_TEXTS),
  };
  if (!given.success) return { ...base, query: "", notFound: false };
  const sub = await findSubByEmailOrSub(servicesOf(context).db, given.data.member);
  if (sub) throw redirect(pathFor("admin-user", getLocale(context), { sub }));
  return data({ ...base, query: given.data.member, notFound: true }, { status: 404 });
}

export default function AdminOpenMemberPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const navigation = useNavigation();
  return (
    <section className="admin-section" aria-labelledby="open-member-title">
      <h2 id="open-member-title">{t("open.title")}</h2>
      <p>{t("open.lead")}</p>
      <AdminGetForm key={loaderData.query} className="admin-filters" aria-labelledby="open-member-title">
        {loaderData.notFound ? (
          <p role="alert" className="form-alert">
            {t("open.notFound", { query: loaderData.query })}
          </p>
        ) : null}
        <InputField
          label={t("open.label")}
          inputProps={{
            name: "member",
            id: "open-member",
            type: "search",
            required: true,
            defaultValue: loaderData.query,
          }}
        />
        <div className="admin-filters__actions">
          <Button pending={navigation.state === "loading"}>{t("open.submit")}</Button>
        </div>
      </AdminGetForm>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
