export * from "./member-profiles";
export * from "./member-sessions";
export * from "./legacy-credentials";
export * from "./rate-limits";
