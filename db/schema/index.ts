export * from "./member-profiles";
