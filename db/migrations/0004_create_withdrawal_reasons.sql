CREATE TABLE "withdrawal_reasons" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sub" uuid NOT NULL,
	"reason" text NOT NULL,
	"detail" text,
	"locale" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "withdrawal_reasons_created_at_idx" ON "withdrawal_reasons" USING btree ("created_at");