CREATE TABLE "legacy_credentials" (
	"email" text PRIMARY KEY NOT NULL,
	"password_hash" text NOT NULL,
	"profile" jsonb NOT NULL,
	"imported_at" timestamp with time zone DEFAULT now() NOT NULL,
	"migrated_at" timestamp with time zone,
	"migrated_sub" uuid
);
