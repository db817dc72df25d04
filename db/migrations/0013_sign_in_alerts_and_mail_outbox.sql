CREATE TABLE "known_browsers" (
	"sub" uuid NOT NULL,
	"device_key_hash" text NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"first_signed_in_at" timestamp with time zone,
	CONSTRAINT "known_browsers_sub_device_key_hash_pk" PRIMARY KEY("sub","device_key_hash")
);
--> statement-breakpoint
CREATE TABLE "sign_in_alert_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"sub" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sign_in_alert_tokens_sessionId_unique" UNIQUE("session_id")
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"locale" text NOT NULL,
	"details" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"abandoned_at" timestamp with time zone,
	"last_error" text
);
--> statement-breakpoint
CREATE INDEX "sign_in_alert_tokens_expires_at_idx" ON "sign_in_alert_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "mail_outbox_due_idx" ON "mail_outbox" USING btree ("next_attempt_at") WHERE "mail_outbox"."sent_at" is null and "mail_outbox"."abandoned_at" is null;--> statement-breakpoint
CREATE INDEX "mail_outbox_created_at_idx" ON "mail_outbox" USING btree ("created_at");--> statement-breakpoint
-- The browsers of the sessions on record are known, so that members are not told of browsers they already used.
INSERT INTO "known_browsers" ("sub", "device_key_hash", "first_seen_at", "first_signed_in_at")
SELECT "sub", encode(sha256(convert_to("device_key", 'UTF8')), 'hex'), min("created_at"), min("created_at")
FROM "member_sessions" GROUP BY 1, 2;
