CREATE TABLE "invitation_resends" (
	"sub" uuid PRIMARY KEY NOT NULL,
	"resent_at" timestamp with time zone NOT NULL
);
