CREATE TABLE "member_passkeys" (
	"credential_id" text PRIMARY KEY NOT NULL,
	"sub" uuid NOT NULL,
	"name" text,
	"made_on_device" text NOT NULL,
	"made_on_browser" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "member_passkeys_sub_idx" ON "member_passkeys" USING btree ("sub","created_at");