DROP INDEX "member_directory_locale_idx";--> statement-breakpoint
DROP INDEX "member_directory_referrer_idx";--> statement-breakpoint
CREATE INDEX "withdrawal_reasons_sub_idx" ON "withdrawal_reasons" USING btree ("sub");--> statement-breakpoint
CREATE INDEX "member_directory_locale_idx" ON "member_directory" USING btree ("locale","signed_up_at","sub","member_status");--> statement-breakpoint
CREATE INDEX "member_directory_referrer_idx" ON "member_directory" USING btree ("referrer_service","signed_up_at","sub","member_status");