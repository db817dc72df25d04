import { once } from "node:events";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";
import { addMailboxEntry } from "./dev-mailbox";

export interface RunningMailCapture {
  url: string;
  stop(): Promise<void>;
}

/** Caps a captured message so a runaway sender cannot fill the disk. */
const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

/**
 * An in-process SMTP server on loopback that accepts every message (no auth, no TLS: it never leaves this
 * machine) and files it in the dev mailbox. The app sends to it through its normal SMTP_URL path.
 */
export async function startMailCapture(options: { mailboxDir: string; port?: number }): Promise<RunningMailCapture> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        PostalMime.parse(Buffer.concat(chunks))
          .then((mail) =>
            addMailboxEntry(options.mailboxDir, {
              kind: "mail",
              to: session.envelope.rcptTo.map((recipient) => recipient.address),
              subject: mail.subject ?? "",
              text: mail.text ?? "",
              html: mail.html ?? undefined,
            }),
          )
          .then(
            () => callback(),
            (error: Error) => callback(error),
          );
      });
    },
  });
  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server.server, "listening");
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
