CREATE TABLE "member_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sub" uuid NOT NULL,
	"email" text NOT NULL,
	"device_key" text NOT NULL,
	"device_name" text NOT NULL,
	"browser" text NOT NULL,
	"refresh_token_encrypted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"last_login_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "member_sessions_live_device_idx" ON "member_sessions" USING btree ("sub","device_key") WHERE "member_sessions"."revoked_at" is null and "member_sessions"."activated_at" is not null;--> statement-breakpoint
CREATE INDEX "member_sessions_sub_idx" ON "member_sessions" USING btree ("sub");