-- pgcrypto's hmac() signs the e-mail-address export's unsubscribe links inside its COPY query
-- (app/domain/README.md, "newsletter"). A trusted extension since PostgreSQL 13: a role with CREATE on the database
-- (the one that migrates) may create it.
CREATE EXTENSION IF NOT EXISTS pgcrypto;--> statement-breakpoint
ALTER TABLE "member_profiles" ADD COLUMN "receives_newsletter" boolean DEFAULT true NOT NULL;
