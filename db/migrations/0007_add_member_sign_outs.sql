CREATE TABLE "member_sign_outs" (
	"sub" uuid PRIMARY KEY NOT NULL,
	"signed_out_at" timestamp with time zone NOT NULL
);
