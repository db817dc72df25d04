CREATE TABLE "scheduled_job_turns" (
	"job" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone NOT NULL
);
