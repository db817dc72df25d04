CREATE TABLE "staff_group_checks" (
	"group_name" text PRIMARY KEY NOT NULL,
	"checked_at" timestamp with time zone,
	"claimed_at" timestamp with time zone NOT NULL
);
