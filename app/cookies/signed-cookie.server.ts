import { type Cookie, createCookie } from "react-router";
import type { z } from "zod";
import type { Config } from "~/config.server";

export type CookieConfig = Pick<Config, "secureCookies" | "sessionSecrets" | "cookieDomain">;

export interface SignedCookieOptions {
  maxAge?: number;
  /**
   * Set on COOKIE_DOMAIN (with the `__Secure-` prefix): the parent domain is what lets the sibling services on
   * sibling hosts see it. Otherwise the cookie stays on this host and over https takes the stricter `__Host-` prefix.
   */
  shared?: boolean;
}

/**
 * The house cookie: HttpOnly, SameSite=Lax, Path=/, signed with the session secrets (the first signs, every one
 * verifies, so secrets rotate), Secure outside plain-http development, where the prefix makes browsers refuse it
 * over plain http. SameSite=Lax does not separate sibling subdomains, so state-changing requests are also checked
 * by origin (app/server/csrf.ts).
 */
export function createSignedCookie(config: CookieConfig, name: string, options: SignedCookieOptions = {}): Cookie {
  const prefix = config.secureCookies ? (options.shared ? "__Secure-" : "__Host-") : "";
  return createCookie(`${prefix}${name}`, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: config.secureCookies,
    secrets: config.sessionSecrets,
    ...(options.shared ? { domain: config.cookieDomain } : {}),
    ...(options.maxAge === undefined ? {} : { maxAge: options.maxAge }),
  });
}

/** Built once per configuration object and kept, not per request. */
export function oncePerConfig<T>(build: (config: CookieConfig) => T): (config: CookieConfig) => T {
  const built = new WeakMap<CookieConfig, T>();
  return (config) => {
    let value = built.get(config);
    if (value === undefined) {
      value = build(config);
      built.set(config, value);
    }
    return value;
  };
}

export interface TypedCookie<Value> {
  /** The value, or null when the cookie is missing, its signature is wrong or its value does not fit the schema. */
  read(config: CookieConfig, request: Request): Promise<Value | null>;
  serialize(config: CookieConfig, value: Value): Promise<string>;
  /** The Set-Cookie that removes it. */
  clear(config: CookieConfig): Promise<string>;
  /** Whether the request carries the cookie at all, valid or not (a session that has since ended, say). */
  isPresent(config: CookieConfig, request: Request): boolean;
}

/** A signed cookie whose value is checked against its schema on every read. */
export function defineCookie<Schema extends z.ZodType>(
  name: string,
  schema: Schema,
  options: SignedCookieOptions = {},
): TypedCookie<z.output<Schema>> {
  const cookieFor = oncePerConfig((config) => createSignedCookie(config, name, options));
  return {
    async read(config, request) {
      const value: unknown = await cookieFor(config).parse(request.headers.get("Cookie"));
      const parsed = schema.safeParse(value);
      return parsed.success ? parsed.data : null;
    },
    serialize: (config, value) => cookieFor(config).serialize(value),
    clear: (config) => cookieFor(config).serialize("", { maxAge: 0 }),
    isPresent(config, request) {
      const prefix = `${cookieFor(config).name}=`;
      return (request.headers.get("Cookie") ?? "").split(";").some((pair) => pair.trim().startsWith(prefix));
    },
  };
}
