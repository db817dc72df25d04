ALTER TABLE "member_profiles" ADD COLUMN "cognito_deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "member_sessions" ADD COLUMN "refresh_token_revoked_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "member_profiles_cognito_deletion_owed_idx" ON "member_profiles" USING btree ("cancelled_at") WHERE "member_profiles"."cancelled_at" is not null and "member_profiles"."cognito_deleted_at" is null;--> statement-breakpoint
CREATE INDEX "member_sessions_revocation_owed_idx" ON "member_sessions" USING btree ("revoked_at") WHERE "member_sessions"."revoked_at" is not null and "member_sessions"."refresh_token_revoked_at" is null;--> statement-breakpoint
CREATE INDEX "member_sessions_refresh_token_idx" ON "member_sessions" USING hash ("refresh_token_encrypted");--> statement-breakpoint
CREATE INDEX "email_change_tokens_expires_at_idx" ON "email_change_tokens" USING btree ("expires_at");--> statement-breakpoint
-- Cancellations before this migration deleted the Cognito user inside their transaction: nothing is owed.
UPDATE "member_profiles" SET "cognito_deleted_at" = "cancelled_at" WHERE "cancelled_at" IS NOT NULL;--> statement-breakpoint
-- Sessions ended before it were revoked once, best effort; they are not retried (their tokens may be long expired).
UPDATE "member_sessions" SET "refresh_token_revoked_at" = "revoked_at" WHERE "revoked_at" IS NOT NULL;
