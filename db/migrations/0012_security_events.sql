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
CREATE INDEX "security_events_member_browser_idx" ON "security_events" USING btree ("sub","device_key_hash") WHERE "security_events"."kind" = 'sign-in';--> statement-breakpoint
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
  FOR EACH ROW EXECUTE FUNCTION security_events_append_only();
