/**
 * The Lambda functions the stand-in's pools can name as triggers, standing in for the AWS account's Lambda service.
 * Each is the app's own trigger code, run in this process with the environment "deployed" for it through the
 * harness's control endpoint (`PUT /__harness/functions/<name>`, which provisioning calls, as an operator deploys
 * the function). The environments are kept in the stand-in's data directory, so a restarted stand-in keeps them.
 * Never part of production.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { handler as customMessageHandler } from "~/integrations/cognito/custom-message";
import { handler as preTokenGenerationHandler } from "~/integrations/cognito/pre-token-generation";
import { CognitoFault } from "./errors";
import { CUSTOM_MESSAGE_FUNCTION, PRE_TOKEN_GENERATION_FUNCTION } from "./function-names";

/** Each function takes its own trigger's event; the trigger that invokes it knows which. */
type Handler = (event: never) => Promise<unknown>;

const HANDLERS: Record<string, Handler> = {
  [PRE_TOKEN_GENERATION_FUNCTION]: preTokenGenerationHandler,
  [CUSTOM_MESSAGE_FUNCTION]: customMessageHandler,
};

/** The function name an ARN (or a bare name) stands for. */
function functionName(arnOrName: string): string {
  return arnOrName.split(":function:").pop()!.split(":")[0]!;
}

export class LambdaFunctions {
  private readonly file: string;
  private environments: Record<string, Record<string, string>>;

  constructor(dataDirectory: string) {
    this.file = path.join(dataDirectory, "lambda-functions.json");
    try {
      this.environments = JSON.parse(readFileSync(this.file, "utf8")) as Record<string, Record<string, string>>;
    } catch {
      this.environments = {};
    }
  }

  /** "Deploys" a known function's configuration: its environment variables, replacing the earlier ones. */
  configure(name: string, environment: Record<string, string>): void {
    if (!HANDLERS[name]) throw new Error(`The stand-in has no function ${name}`);
    this.environments = { ...this.environments, [name]: environment };
    writeFileSync(this.file, JSON.stringify(this.environments));
  }

  /**
   * Runs a trigger as Cognito does: an ARN the account does not hold fails the operation that triggered it with
   * UnexpectedLambdaException, as Cognito answers when it cannot invoke the function. The function's environment
   * is the process environment while the handler is called (it reads `process.env` as it starts, as in Lambda),
   * and put back before anything else runs.
   */
  invoke<Event extends object>(arn: string, event: Event): Promise<Event> {
    const name = functionName(arn);
    const handler = HANDLERS[name];
    if (!handler) {
      throw new CognitoFault("UnexpectedLambdaException", `Lambda function ${arn} does not exist or cannot be invoked`);
    }
    const environment = this.environments[name] ?? {};
    const saved = Object.fromEntries(Object.keys(environment).map((key) => [key, process.env[key]]));
    Object.assign(process.env, environment);
    try {
      return handler(structuredClone(event) as never) as Promise<Event>;
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }
}
