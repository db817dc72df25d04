ALTER TABLE "member_sessions" ADD COLUMN "origin_jti" text;--> statement-breakpoint
CREATE INDEX "member_sessions_origin_jti_idx" ON "member_sessions" USING btree ("origin_jti");