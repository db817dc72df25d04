CREATE TABLE "account_event_feed_head" (
	"id" smallint PRIMARY KEY NOT NULL,
	"last_position" bigint NOT NULL,
	CONSTRAINT "account_event_feed_head_one_row" CHECK ("account_event_feed_head"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "account_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"type" text NOT NULL,
	"sub" uuid NOT NULL,
	"member_sequence" bigint NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"data" jsonb NOT NULL,
	"feed_position" bigint,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"event_id" uuid NOT NULL,
	"service" text NOT NULL,
	"channel" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"failed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "member_event_sequences" (
	"sub" uuid PRIMARY KEY NOT NULL,
	"last_sequence" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sibling_endpoints" (
	"service" text PRIMARY KEY NOT NULL,
	"failing_since" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"disabled_reason" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_deliveries" ADD CONSTRAINT "event_deliveries_event_id_account_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."account_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_events_member_sequence_idx" ON "account_events" USING btree ("sub","member_sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "account_events_feed_position_idx" ON "account_events" USING btree ("feed_position");--> statement-breakpoint
CREATE INDEX "account_events_unpublished_idx" ON "account_events" USING btree ("recorded_at") WHERE "account_events"."feed_position" is null;--> statement-breakpoint
CREATE INDEX "account_events_recorded_at_idx" ON "account_events" USING btree ("recorded_at");--> statement-breakpoint
CREATE UNIQUE INDEX "event_deliveries_event_service_channel_idx" ON "event_deliveries" USING btree ("event_id","service","channel");--> statement-breakpoint
CREATE INDEX "event_deliveries_due_idx" ON "event_deliveries" USING btree ("next_attempt_at") WHERE "event_deliveries"."delivered_at" is null and "event_deliveries"."failed_at" is null;--> statement-breakpoint
CREATE INDEX "event_deliveries_service_created_idx" ON "event_deliveries" USING btree ("service","created_at");--> statement-breakpoint
INSERT INTO "account_event_feed_head" ("id", "last_position") VALUES (1, 0);