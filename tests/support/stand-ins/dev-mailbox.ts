import { randomUUID } from "node:crypto";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { MailboxEntry } from "~/router-context.server";

/**
 * The development mailbox: every mail the embedded SMTP capture receives and every code the Cognito stand-in
 * would have sent, one JSON file each, so the app's mailbox page, the stand-in process and the tests all read
 * the same box. Development and preview only; production has no mailbox.
 */
export type { MailboxEntry };

const MAX_LISTED = 200;

export function mailboxDirectory(dataDir: string): string {
  return path.resolve(dataDir, "mailbox");
}

export async function addMailboxEntry(
  directory: string,
  entry: Omit<MailboxEntry, "id" | "receivedAt">,
): Promise<MailboxEntry> {
  await mkdir(directory, { recursive: true });
  const receivedAt = new Date().toISOString();
  // The time-first file name keeps the directory listing in arrival order.
  const id = `${receivedAt.replace(/[:.]/g, "-")}-${randomUUID().slice(0, 8)}`;
  const stored: MailboxEntry = { id, receivedAt, ...entry };
  await writeFile(path.join(directory, `${id}.json`), JSON.stringify(stored));
  return stored;
}

/** The newest entries first; an empty list when nothing has arrived yet. */
export async function listMailboxEntries(directory: string, limit = MAX_LISTED): Promise<MailboxEntry[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const newest = names
    .filter((name) => name.endsWith(".json"))
    .sort()
    .reverse()
    .slice(0, limit);
  const entries = await Promise.all(
    newest.map(async (name) => JSON.parse(await readFile(path.join(directory, name), "utf8")) as MailboxEntry),
  );
  return entries;
}

/** How many mailbox entries (mails and codes) went to each of these addresses. */
export async function mailboxCountsTo(directory: string, addresses: string[]): Promise<Map<string, number>> {
  const counts = new Map(addresses.map((address) => [address, 0]));
  for (const entry of await listMailboxEntries(directory, Number.MAX_SAFE_INTEGER)) {
    for (const to of entry.to) if (counts.has(to)) counts.set(to, counts.get(to)! + 1);
  }
  return counts;
}
