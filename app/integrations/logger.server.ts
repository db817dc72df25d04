import { pino } from "pino";

/**
 * Structured JSON logs (pino). Anything that could carry a secret is redacted at the source as well as here:
 * request logs never include query strings, bodies or cookies (SECURITY.md item 20).
 */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? "info",
  base: undefined,
  redact: {
    paths: [
      "password",
      "*.password",
      "code",
      "*.code",
      "token",
      "*.token",
      "refreshToken",
      "*.refreshToken",
      "cookie",
      "*.cookie",
      "authorization",
      "*.authorization",
    ],
    censor: "[redacted]",
  },
});
