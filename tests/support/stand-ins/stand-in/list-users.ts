/**
 * ListUsers as Cognito answers it: at most 60 users a page (Limit, default and maximum 60), a PaginationToken while
 * more remain, the documented Filter syntax (`attr = "value"` exact, `attr ^= "value"` prefix, one attribute, inner
 * quotes escaped with a backslash), and AttributesToGet. cognito-local returns every user at once.
 */
import { fault } from "./errors";
import type { LocalUser } from "./cognito-local";

export const LIST_USERS_MAX_LIMIT = 60;

const FILTER = /^\s*(?<attr>[\w:]+)\s*(?<op>\^?=)\s*"(?<value>(?:[^"\\]|\\.)*)"\s*$/;

function attribute(user: LocalUser, name: string): string | undefined {
  return user.Attributes.find((item) => item.Name === name)?.Value;
}

/** The searchable attributes of the API reference, and how each is compared. */
const SEARCHABLE: Record<string, { value: (user: LocalUser) => string | undefined; caseInsensitive?: boolean }> = {
  username: { value: (user) => user.Username },
  email: { value: (user) => attribute(user, "email") },
  phone_number: { value: (user) => attribute(user, "phone_number") },
  name: { value: (user) => attribute(user, "name") },
  given_name: { value: (user) => attribute(user, "given_name") },
  family_name: { value: (user) => attribute(user, "family_name") },
  preferred_username: { value: (user) => attribute(user, "preferred_username") },
  "cognito:user_status": { value: (user) => user.UserStatus, caseInsensitive: true },
  // "status" is the Enabled flag, searched as "Enabled" / "Disabled".
  status: { value: (user) => (user.Enabled ? "Enabled" : "Disabled"), caseInsensitive: true },
  sub: { value: (user) => attribute(user, "sub") },
};

export function parseFilter(filter: unknown): (user: LocalUser) => boolean {
  if (filter === undefined || filter === null || (typeof filter === "string" && filter.trim() === ""))
    return () => true;
  if (typeof filter !== "string") throw fault.invalidParameter("Error while parsing filter.");
  const match = FILTER.exec(filter);
  if (!match?.groups) throw fault.invalidParameter("Error while parsing filter.");
  const { attr = "", op, value: rawValue = "" } = match.groups;
  const searchable = SEARCHABLE[attr];
  if (!searchable) throw fault.invalidParameter(`Invalid search attribute: ${attr}`);
  const wanted = rawValue.replace(/\\(.)/g, "$1");
  const normalise = (text: string) => (searchable.caseInsensitive ? text.toLowerCase() : text);
  return (user) => {
    const actual = searchable.value(user);
    if (actual === undefined) return false;
    return op === "=" ? normalise(actual) === normalise(wanted) : normalise(actual).startsWith(normalise(wanted));
  };
}

function encodeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ offset }), "utf8").toString("base64url");
}

function decodeToken(token: unknown): number {
  if (token === undefined || token === null) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(String(token), "base64url").toString("utf8")) as { offset?: unknown };
    if (typeof parsed.offset === "number" && Number.isInteger(parsed.offset) && parsed.offset >= 0)
      return parsed.offset;
  } catch {
    // falls through to the error below
  }
  throw fault.invalidParameter("Invalid pagination token.");
}

export function pageLimit(limit: unknown, label = "limit"): number {
  if (limit === undefined || limit === null || limit === 0) return LIST_USERS_MAX_LIMIT;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0 || limit > LIST_USERS_MAX_LIMIT) {
    throw fault.invalidParameter(
      `1 validation error detected: Value '${String(limit)}' at '${label}' failed to satisfy constraint: ` +
        `Member must have value less than or equal to ${LIST_USERS_MAX_LIMIT}`,
    );
  }
  return limit;
}

/** A page of users in a stable order (creation time, then username), and the token for the next page if any. */
export function pageOf<T>(items: T[], limit: number, token: unknown): { page: T[]; next?: string } {
  const offset = decodeToken(token);
  const page = items.slice(offset, offset + limit);
  const nextOffset = offset + page.length;
  return nextOffset < items.length ? { page, next: encodeToken(nextOffset) } : { page };
}

export function listUsersPage(
  users: LocalUser[],
  request: { Limit?: unknown; PaginationToken?: unknown; Filter?: unknown; AttributesToGet?: unknown },
): { Users: Record<string, unknown>[]; PaginationToken?: string } {
  const limit = pageLimit(request.Limit);
  const matches = users.filter(parseFilter(request.Filter));
  matches.sort(
    (a, b) =>
      new Date(a.UserCreateDate).getTime() - new Date(b.UserCreateDate).getTime() ||
      a.Username.localeCompare(b.Username),
  );
  const { page, next } = pageOf(matches, limit, request.PaginationToken);
  const wanted = Array.isArray(request.AttributesToGet) ? new Set(request.AttributesToGet as string[]) : undefined;
  return {
    Users: page.map((user) => ({
      Username: user.Username,
      Attributes: wanted ? user.Attributes.filter((item) => wanted.has(item.Name)) : user.Attributes,
      UserCreateDate: user.UserCreateDate,
      UserLastModifiedDate: user.UserLastModifiedDate,
      Enabled: user.Enabled,
      UserStatus: user.UserStatus,
      ...(user.MFAOptions ? { MFAOptions: user.MFAOptions } : {}),
    })),
    ...(next ? { PaginationToken: next } : {}),
  };
}
