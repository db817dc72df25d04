CREATE TABLE "member_profiles" (
	"sub" uuid PRIMARY KEY NOT NULL,
	"family_name" text,
	"given_name" text,
	"birth_year" smallint,
	"country" text,
	"prefecture" text,
	"occupation" text,
	"organization" text,
	"preferred_language" text DEFAULT 'ja' NOT NULL,
	"questionnaire" jsonb,
	"referrer_service" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cancelled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "member_profiles_cancelled_at_idx" ON "member_profiles" USING btree ("cancelled_at") WHERE "member_profiles"."cancelled_at" is not null;