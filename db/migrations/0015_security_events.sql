CREATE TABLE "security_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "security_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"sub" uuid NOT NULL,
	"kind" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"session_id" uuid,
	"device_name" text,
	"browser" text,
	"ip_address" text,
	"device_key_hash" text,
	"new_browser" boolean,
	"attempts" integer DEFAULT 1 NOT NULL,
	"last_occurred_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "security_events_member_idx" ON "security_events" USING btree ("sub","occurred_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "security_events_member_browser_idx" ON "security_events" USING btree ("sub","device_key_hash") WHERE "security_events"."kind" in ('sign-in', 'signed-up');--> statement-breakpoint
CREATE UNIQUE INDEX "security_events_refused_window_idx" ON "security_events" USING btree ("sub","occurred_at") WHERE "security_events"."kind" = 'sign-in-refused';--> statement-breakpoint
CREATE INDEX "security_events_occurred_at_idx" ON "security_events" USING btree ("occurred_at");--> statement-breakpoint
-- The security record is append-only. Two exceptions, each as narrow as it can be: a refused-sign-in row's counter
-- (its attempts, latest time and latest IP) grows within its hour, and the retention purge deletes, having said so
-- for its own transaction (set_config('member_account.security_events_purge', 'on', true)).
CREATE FUNCTION security_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF current_setting('member_account.security_events_purge', true) = 'on' THEN
      RETURN OLD;
    END IF;
  ELSIF OLD.kind = 'sign-in-refused'
    AND (NEW.id, NEW.sub, NEW.kind, NEW.occurred_at, NEW.session_id, NEW.device_name, NEW.browser,
         NEW.device_key_hash, NEW.new_browser)
      IS NOT DISTINCT FROM
        (OLD.id, OLD.sub, OLD.kind, OLD.occurred_at, OLD.session_id, OLD.device_name, OLD.browser,
         OLD.device_key_hash, OLD.new_browser)
    AND NEW.attempts > OLD.attempts THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'security_events is append-only';
END $$;--> statement-breakpoint
CREATE TRIGGER security_events_append_only BEFORE UPDATE OR DELETE ON security_events
  FOR EACH ROW EXECUTE FUNCTION security_events_append_only();--> statement-breakpoint
-- The browsers known to the sign-in alerts (known_browsers, dropped by the next migration) become the record's first
-- events, so no member is mailed about a browser they already used: a browser that signed in becomes a sign-in at its
-- first sign-in (with its earliest session's device and browser), the sign-up browser that has not yet signed in
-- becomes a sign-up. new_browser stays null: whether it was new then is not known.
INSERT INTO "security_events" ("sub", "kind", "occurred_at", "session_id", "device_name", "browser", "device_key_hash")
SELECT kb."sub", CASE WHEN kb."first_signed_in_at" IS NULL THEN 'signed-up' ELSE 'sign-in' END,
  coalesce(kb."first_signed_in_at", kb."first_seen_at"), s."id", s."device_name", s."browser", kb."device_key_hash"
FROM "known_browsers" kb
LEFT JOIN LATERAL (
  SELECT ms."id", ms."device_name", ms."browser" FROM "member_sessions" ms
  WHERE ms."sub" = kb."sub" AND encode(sha256(convert_to(ms."device_key", 'UTF8')), 'hex') = kb."device_key_hash"
  ORDER BY ms."created_at" LIMIT 1
) s ON kb."first_signed_in_at" IS NOT NULL;
