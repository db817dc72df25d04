export * from "./member-profiles";
export * from "./member-sessions";
export * from "./legacy-credentials";
export * from "./rate-limits";
export * from "./withdrawal-reasons";
export * from "./email-change-tokens";
export * from "./member-sign-outs";
