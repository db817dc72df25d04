-- Device keys a sibling registered through the API move into the API's namespace ('api:' || key), where the app now
-- stores them (app/domain/sessions/device-keys.server.ts): such a key is never the same browser as one our pages
-- issued, and never makes a browser known to the sign-in alerts (docs/security.md, "Known browsers").
-- An API registration is a session on which no password was ever typed (every page sign-in sets
-- password_verified_at, since migration 0014) whose sign-in event was written as it happened (new_browser is set by
-- every sign-in since migration 0015; the events 0015 carried over have none). Sessions older than that cannot be
-- told from a page's and keep their keys; so do the events of API sessions the purge has already deleted.
UPDATE "member_sessions" SET "device_key" = 'api:' || "device_key"
WHERE "password_verified_at" IS NULL AND "device_key" NOT LIKE 'api:%'
  AND EXISTS (
    SELECT 1 FROM "security_events" e
    WHERE e."session_id" = "member_sessions"."id" AND e."kind" = 'sign-in' AND e."new_browser" IS NOT NULL
  );
--> statement-breakpoint
-- Their sign-in events take the namespaced key's hash, so that an API registration no longer counts as an earlier
-- sign-in from a browser with that key. The record is append-only for the app (migration 0015's trigger), so the
-- trigger stands aside for this one statement; kind, time, device, IP and session stay as they were.
ALTER TABLE "security_events" DISABLE TRIGGER "security_events_append_only";
--> statement-breakpoint
UPDATE "security_events" SET "device_key_hash" = encode(sha256(convert_to(ms."device_key", 'UTF8')), 'hex')
FROM "member_sessions" ms
WHERE "security_events"."session_id" = ms."id" AND "security_events"."kind" = 'sign-in'
  AND ms."device_key" LIKE 'api:%';
--> statement-breakpoint
ALTER TABLE "security_events" ENABLE TRIGGER "security_events_append_only";
