export * from "./member-profiles";
export * from "./member-sessions";
