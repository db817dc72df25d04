/** A complete production environment (nothing real behind it): for tests of what production mode does. */
export const PRODUCTION_ENV = {
  APP_MODE: "production",
  APP_ORIGIN: "https://id.example.jp",
  SESSION_SECRETS: "s".repeat(32),
  DATABASE_URL: "postgres://db.internal/app",
  COGNITO_REGION: "ap-northeast-1",
  COGNITO_USER_POOL_ID: "ap-northeast-1_pool",
  COGNITO_CLIENT_ID: "client",
  COGNITO_STAFF_CLIENT_ID: "staff-client",
  COGNITO_SERVER_CLIENT_ID: "server-client",
  SMTP_URL: "smtp://mail.internal:25",
  TRUST_PROXY_HOPS: "0",
};
