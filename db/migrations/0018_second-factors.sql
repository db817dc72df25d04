CREATE TABLE "recovery_codes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "recovery_codes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"sub" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "two_step_verifications" (
	"sub" uuid PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"enabled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "recovery_codes_member_hash_idx" ON "recovery_codes" USING btree ("sub","code_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "two_step_verifications_username_idx" ON "two_step_verifications" USING btree ("username");