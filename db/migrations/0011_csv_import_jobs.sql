CREATE TABLE "csv_import_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"state" text DEFAULT 'validated' NOT NULL,
	"file_name" text NOT NULL,
	"encoding" text NOT NULL,
	"created_by_sub" uuid NOT NULL,
	"created_by_email" text NOT NULL,
	"request_id" text NOT NULL,
	"total_rows" integer NOT NULL,
	"creations_per_second" real,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"queued_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"cancelled_by_sub" uuid,
	"cancelled_by_email" text,
	"final_counts" jsonb,
	CONSTRAINT "csv_import_jobs_state_check" CHECK ("csv_import_jobs"."state" in ('validated', 'queued', 'running', 'cancelled', 'completed'))
);
--> statement-breakpoint
CREATE TABLE "csv_import_rows" (
	"job_id" uuid NOT NULL,
	"row_number" integer NOT NULL,
	"values" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"sub" uuid,
	"failure_code" text,
	"failure_detail" text,
	"attempts" smallint DEFAULT 0 NOT NULL,
	"first_claimed_at" timestamp with time zone,
	"claimed_by" text,
	"claimed_until" timestamp with time zone,
	"retry_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "csv_import_rows_job_id_row_number_pk" PRIMARY KEY("job_id","row_number"),
	CONSTRAINT "csv_import_rows_state_check" CHECK ("csv_import_rows"."state" in ('pending', 'creating', 'created', 'failed', 'skipped'))
);
--> statement-breakpoint
CREATE TABLE "throttle_slots" (
	"name" text PRIMARY KEY NOT NULL,
	"next_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "csv_import_rows" ADD CONSTRAINT "csv_import_rows_job_id_csv_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."csv_import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "csv_import_jobs_active_idx" ON "csv_import_jobs" USING btree ("queued_at") WHERE "csv_import_jobs"."state" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "csv_import_jobs_created_at_idx" ON "csv_import_jobs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "csv_import_rows_claimable_idx" ON "csv_import_rows" USING btree ("job_id","row_number") WHERE "csv_import_rows"."state" in ('pending', 'creating');--> statement-breakpoint
CREATE INDEX "csv_import_rows_state_idx" ON "csv_import_rows" USING btree ("job_id","state","row_number");