CREATE TABLE "staff_factor_setups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sub" uuid NOT NULL,
	"email" text NOT NULL,
	"staff_refresh_token_encrypted" text NOT NULL,
	"server_access_token_encrypted" text NOT NULL,
	"secret_encrypted" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "staff_factor_setups_expires_at_idx" ON "staff_factor_setups" USING btree ("expires_at");