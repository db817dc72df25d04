/**
 * Test switches of the Cognito stand-in (its harness's control endpoint): faults and the request counter.
 * `endpoint` is the stand-in's address (COGNITO_ENDPOINT, or RunningStandIn.endpoint).
 *
 *   await setFault(endpoint, { mode: "throttle", operations: ["AdminInitiateAuth"], times: 1 });
 *   await resetHarness(endpoint);
 *   expect((await getRequestCounts(endpoint)).total).toBe(0);
 */
export {
  getFault,
  getRequestCounts,
  JWKS_OPERATION,
  OPENID_CONFIGURATION_OPERATION,
  resetHarness,
  resetRequestCounts,
  setFault,
  type FaultMode,
  type FaultSettings,
  type FaultState,
  type RequestCounts,
  type ThrottleError,
} from "./stand-ins/stand-in/harness-client";
