CREATE TABLE "pending_cognito_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sub" uuid,
	"email" text NOT NULL,
	"kind" text NOT NULL,
	"data" jsonb NOT NULL,
	"password_verifier" text,
	"created_at" timestamp with time zone NOT NULL,
	"leased_until" timestamp with time zone,
	"sessions_ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "pending_cognito_changes_sub_idx" ON "pending_cognito_changes" USING btree ("sub");--> statement-breakpoint
CREATE INDEX "pending_cognito_changes_email_idx" ON "pending_cognito_changes" USING btree ("email");--> statement-breakpoint
CREATE INDEX "pending_cognito_changes_created_idx" ON "pending_cognito_changes" USING btree ("created_at");