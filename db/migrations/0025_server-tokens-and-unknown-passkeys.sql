CREATE TABLE "unknown_passkeys" (
	"credential_id" text PRIMARY KEY NOT NULL,
	"sub" uuid NOT NULL,
	"found_at" timestamp with time zone NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "session_server_tokens" (
	"session_id" uuid PRIMARY KEY NOT NULL,
	"sub" uuid NOT NULL,
	"access_token_encrypted" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scheduled_job_turns" ADD COLUMN "cursor" text;--> statement-breakpoint
ALTER TABLE "session_server_tokens" ADD CONSTRAINT "session_server_tokens_session_id_member_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."member_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "session_server_tokens_expires_at_idx" ON "session_server_tokens" USING btree ("expires_at");