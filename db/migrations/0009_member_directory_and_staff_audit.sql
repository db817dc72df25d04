CREATE TABLE "directory_reconcile_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"status" text DEFAULT 'running' NOT NULL,
	"pagination_token" text,
	"pages_read" integer DEFAULT 0 NOT NULL,
	"users_seen" integer DEFAULT 0 NOT NULL,
	"drift" jsonb DEFAULT '{"added":0,"changed":0,"missing":0,"examples":[]}'::jsonb NOT NULL,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "member_directory" (
	"sub" uuid PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"email" text NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"cognito_status" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"signed_up_at" timestamp with time zone NOT NULL,
	"cognito_updated_at" timestamp with time zone NOT NULL,
	"locale" text,
	"family_name" text,
	"given_name" text,
	"groups" text[] DEFAULT '{}'::text[] NOT NULL,
	"referrer_service" text,
	"cancelled_at" timestamp with time zone,
	"legacy_migrated_at" timestamp with time zone,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seen_in_cognito_at" timestamp with time zone,
	"missing_from_cognito_at" timestamp with time zone,
	"email_key" text GENERATED ALWAYS AS (lower("member_directory"."email")) STORED,
	"name_key" text GENERATED ALWAYS AS (lower(coalesce("member_directory"."family_name", '') || coalesce("member_directory"."given_name", ''))) STORED,
	"given_name_key" text GENERATED ALWAYS AS (lower(coalesce("member_directory"."given_name", '') || coalesce("member_directory"."family_name", ''))) STORED,
	"member_status" text GENERATED ALWAYS AS (case
        when "member_directory"."cancelled_at" is not null then 'cancelled'
        when not "member_directory"."enabled" then 'disabled'
        when "member_directory"."cognito_status" = 'UNCONFIRMED' then 'unconfirmed'
        else 'active' end) STORED
);
--> statement-breakpoint
CREATE TABLE "staff_audit_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "staff_audit_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_sub" uuid NOT NULL,
	"actor_email" text NOT NULL,
	"action" text NOT NULL,
	"target_sub" uuid,
	"before" jsonb,
	"after" jsonb,
	"request_id" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "directory_reconcile_runs_started_at_idx" ON "directory_reconcile_runs" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "member_directory_signed_up_idx" ON "member_directory" USING btree ("signed_up_at","sub");--> statement-breakpoint
CREATE INDEX "member_directory_email_key_idx" ON "member_directory" USING btree ("email_key" collate "C","sub");--> statement-breakpoint
CREATE INDEX "member_directory_name_key_idx" ON "member_directory" USING btree ("name_key" collate "C","sub");--> statement-breakpoint
CREATE INDEX "member_directory_given_name_key_idx" ON "member_directory" USING btree ("given_name_key" collate "C","sub");--> statement-breakpoint
CREATE INDEX "member_directory_status_idx" ON "member_directory" USING btree ("member_status","signed_up_at","sub");--> statement-breakpoint
CREATE INDEX "member_directory_locale_idx" ON "member_directory" USING btree ("locale","signed_up_at","sub");--> statement-breakpoint
CREATE INDEX "member_directory_referrer_idx" ON "member_directory" USING btree ("referrer_service","signed_up_at","sub");--> statement-breakpoint
CREATE INDEX "member_directory_legacy_idx" ON "member_directory" USING btree ("legacy_migrated_at") WHERE "member_directory"."legacy_migrated_at" is not null;--> statement-breakpoint
CREATE INDEX "member_directory_seen_idx" ON "member_directory" USING btree ("seen_in_cognito_at");--> statement-breakpoint
CREATE INDEX "staff_audit_events_occurred_at_idx" ON "staff_audit_events" USING btree ("occurred_at");--> statement-breakpoint
CREATE INDEX "staff_audit_events_target_idx" ON "staff_audit_events" USING btree ("target_sub","occurred_at");--> statement-breakpoint
CREATE INDEX "staff_audit_events_actor_idx" ON "staff_audit_events" USING btree ("actor_sub","occurred_at");--> statement-breakpoint
CREATE INDEX "staff_audit_events_action_idx" ON "staff_audit_events" USING btree ("action","occurred_at");--> statement-breakpoint
CREATE INDEX "legacy_credentials_migrated_sub_idx" ON "legacy_credentials" USING btree ("migrated_sub");--> statement-breakpoint
-- The directory's copies of our own columns (db/schema/member-directory.ts), kept by the database so that no write
-- path can forget them. A new directory row takes them from the tables; a change in the tables updates the row.
CREATE FUNCTION member_directory_take_local_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT p.referrer_service, p.cancelled_at INTO NEW.referrer_service, NEW.cancelled_at
    FROM member_profiles p WHERE p.sub = NEW.sub;
  SELECT l.migrated_at INTO NEW.legacy_migrated_at
    FROM legacy_credentials l WHERE l.migrated_sub = NEW.sub ORDER BY l.migrated_at LIMIT 1;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER member_directory_take_local_state BEFORE INSERT ON member_directory
  FOR EACH ROW EXECUTE FUNCTION member_directory_take_local_state();--> statement-breakpoint
CREATE FUNCTION member_directory_copy_profile() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    -- The purge removes a cancelled member's profile 13 months on; their directory row goes with it.
    DELETE FROM member_directory WHERE sub = OLD.sub AND cancelled_at IS NOT NULL;
    RETURN OLD;
  END IF;
  UPDATE member_directory SET referrer_service = NEW.referrer_service, cancelled_at = NEW.cancelled_at
    WHERE sub = NEW.sub
      AND (referrer_service IS DISTINCT FROM NEW.referrer_service OR cancelled_at IS DISTINCT FROM NEW.cancelled_at);
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER member_directory_copy_profile AFTER INSERT OR UPDATE OF referrer_service, cancelled_at OR DELETE
  ON member_profiles FOR EACH ROW EXECUTE FUNCTION member_directory_copy_profile();--> statement-breakpoint
CREATE FUNCTION member_directory_copy_legacy_migration() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.migrated_sub IS NOT NULL THEN
    UPDATE member_directory SET legacy_migrated_at = NEW.migrated_at WHERE sub = NEW.migrated_sub;
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER member_directory_copy_legacy_migration AFTER INSERT OR UPDATE OF migrated_sub, migrated_at
  ON legacy_credentials FOR EACH ROW EXECUTE FUNCTION member_directory_copy_legacy_migration();--> statement-breakpoint
-- The audit trail is append-only: the application cannot rewrite or erase what staff did.
CREATE FUNCTION staff_audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'staff_audit_events is append-only';
END $$;--> statement-breakpoint
CREATE TRIGGER staff_audit_events_append_only BEFORE UPDATE OR DELETE ON staff_audit_events
  FOR EACH ROW EXECUTE FUNCTION staff_audit_events_append_only();
