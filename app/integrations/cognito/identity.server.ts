import { getConfig } from "~/config.server";
import { createIdentityProvider, type IdentityProvider } from "./identity-provider.server";

let provider: IdentityProvider | undefined;

/** The process's Cognito adapter, built from the configuration on first use. */
export function getIdentityProvider(): IdentityProvider {
  provider ??= createIdentityProvider(getConfig().cognito);
  return provider;
}
