/**
 * The names (and, in the stand-in's account, the ARNs) of the app's triggers, apart from the functions themselves:
 * provisioning names them in code that Playwright loads too, where the custom message function's compiled-in JSON
 * texts cannot be imported. Never part of production.
 */
export const PRE_TOKEN_GENERATION_FUNCTION = "member-account-pre-token-generation";
export const CUSTOM_MESSAGE_FUNCTION = "member-account-custom-message";
export const STAND_IN_ACCOUNT_ID = "000000000000";

export function standInFunctionArn(name: string, region = "ap-northeast-1"): string {
  return `arn:aws:lambda:${region}:${STAND_IN_ACCOUNT_ID}:function:${name}`;
}
