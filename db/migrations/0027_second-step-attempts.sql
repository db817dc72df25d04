CREATE TABLE "second_step_challenges" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "second_step_challenges_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"sub" uuid NOT NULL,
	"challenge_hash" text NOT NULL,
	"device_key_hash" text,
	"email" text NOT NULL,
	"device_name" text NOT NULL,
	"browser" text NOT NULL,
	"ip_address" text NOT NULL,
	"locale" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"last_activity_at" timestamp with time zone NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "second_step_failures" (
	"username" text PRIMARY KEY NOT NULL,
	"consecutive_failures" integer NOT NULL,
	"last_failed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "second_step_challenges_challenge_idx" ON "second_step_challenges" USING btree ("challenge_hash");--> statement-breakpoint
CREATE INDEX "second_step_challenges_member_browser_idx" ON "second_step_challenges" USING btree ("sub","device_key_hash");--> statement-breakpoint
CREATE INDEX "second_step_challenges_activity_idx" ON "second_step_challenges" USING btree ("last_activity_at");