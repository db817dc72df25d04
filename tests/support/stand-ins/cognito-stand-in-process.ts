/**
 * The Cognito stand-in's own process: cognito-local, wired by hand so that its data lives in the directory we
 * give it, its tokens name its public port as issuer, and the codes it "sends" land in the dev mailbox
 * instead of its console. cognito-local listens on an internal loopback port; the stand-in harness
 * (stand-in-harness.ts) answers on the public port in front of it and makes it behave like Cognito.
 * Started by cognito-stand-in.ts; never part of production.
 */
import { once } from "node:events";
import { createServer as createHttpServer, type RequestListener, type Server } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { pino } from "pino";
import { addMailboxEntry } from "./dev-mailbox";
import { createStandInHarness } from "./stand-in-harness";
import type { LocalServices, LocalTokenGenerator } from "./stand-in/cognito-local";
import { withCustomMessage } from "./stand-in/custom-message";
import { LambdaFunctions } from "./stand-in/lambda-functions";
import { accessTokenLifetimeFromEnv, withCognitoTokenLifetimes, withPreTokenGeneration } from "./stand-in/tokens";
import { WriteBehindDataStoreFactory } from "./stand-in/write-behind-store";

const require = createRequire(import.meta.url);
const lib = (file: string) => require(`cognito-local/lib/${file}`);
const { DateClock, TriggersService, LambdaService } = lib("services");
const { CognitoServiceFactoryImpl } = lib("services/cognitoService");
const { CryptoService } = lib("services/crypto");
const { MessageDeliveryService } = lib("services/messageDelivery/messageDelivery");
const { otp } = lib("services/otp");
const { JwtTokenGenerator } = lib("services/tokenGenerator");
const { UserPoolServiceFactoryImpl } = lib("services/userPoolService");
const { loadConfig } = lib("server/config");
const { Router } = lib("server/Router");
const { createServer } = lib("server/server");

const dataDirectory = path.resolve(process.env.STANDIN_DATA_DIR ?? ".data/cognito");
const mailbox = path.resolve(process.env.STANDIN_MAILBOX_DIR ?? ".data/mailbox");
/** 0: any free port, taken here and reported to the parent (choosing one for it would race other processes). */
const requestedPort = Number(process.env.STANDIN_PORT ?? "0");
// Tests that need tokens to expire shorten the access and ID token lifetime (default: Cognito's 60 minutes).
const accessTokenSeconds = accessTokenLifetimeFromEnv(process.env.STANDIN_ACCESS_TOKEN_TTL_S);
const host = "127.0.0.1";

interface CognitoLocalUser {
  Username: string;
}
interface CognitoLocalMessage {
  __code?: string;
  emailSubject?: string;
  emailMessage?: string;
}

/** Writes each code into the dev mailbox, where /__dev/mailbox/ and the tests find it. */
const mailboxSender = {
  async sendEmail(_ctx: unknown, user: CognitoLocalUser, destination: string, message: CognitoLocalMessage) {
    await addMailboxEntry(mailbox, {
      kind: "code",
      to: [destination],
      subject: message.emailSubject ?? "Your verification code",
      text: message.emailMessage ?? `Your code is ${message.__code}`,
      code: message.__code,
    });
    void user;
  },
  async sendSms() {},
};

const logger = pino({ level: process.env.STANDIN_LOG_LEVEL ?? "error", base: { service: "cognito-stand-in" } });
const ctx = { logger };
// The public port is bound first: the tokens' issuer names it. Nothing calls before the parent hears "ready".
let answer: RequestListener = (_req, res) => void res.writeHead(503).end();
const front = createHttpServer((req, res) => answer(req, res));
front.listen(requestedPort, host);
await once(front, "listening");
const frontAddress = front.address();
const port = typeof frontAddress === "object" && frontAddress ? frontAddress.port : requestedPort;
const publicUrl = `http://${host}:${port}`;
const configStoreFactory = new WriteBehindDataStoreFactory(dataDirectory, logger);
const config = await loadConfig(ctx, configStoreFactory);
// cognito-local itself takes any free loopback port; only the harness in front of it is public.
config.ServerConfig = { ...config.ServerConfig, port: 0, hostname: host, https: false };
// Tokens name the public address as issuer, where the harness serves the JWKS.
config.TokenConfig = { ...config.TokenConfig, IssuerDomain: publicUrl };
// cognito-local gives every new pool e-mail usernames; Cognito gives a pool what CreateUserPool names, and the
// start-up check must see a pool made otherwise as it is.
config.UserPoolDefaults = {};

const clock = new DateClock();
// Pools are saved behind their writes (see write-behind-store.ts) and flushed before the process exits.
const dataStoreFactory = new WriteBehindDataStoreFactory(path.join(dataDirectory, "db"), logger);
const cognito = await new CognitoServiceFactoryImpl(
  path.join(dataDirectory, "db"),
  dataStoreFactory,
  new UserPoolServiceFactoryImpl(clock, dataStoreFactory),
).create(ctx, config.UserPoolDefaults);
const triggers = new TriggersService(
  clock,
  cognito,
  new LambdaService(config.TriggerFunctions, null),
  new CryptoService(config.KMSConfig),
);
const messageDelivery = new MessageDeliveryService(mailboxSender);
// The pools' Lambda triggers (the app's pre token generation and custom message functions), with the environments
// deployed for them.
const functions = new LambdaFunctions(dataDirectory);
const services = {
  clock,
  cognito,
  config,
  messages: withCustomMessage({ cognito, delivery: messageDelivery, functions }),
  messageDelivery,
  otp,
  tokenGenerator: withPreTokenGeneration(
    withCognitoTokenLifetimes(new JwtTokenGenerator(clock, triggers, config.TokenConfig) as LocalTokenGenerator, {
      accessTokenSeconds,
    }),
    { cognito, functions },
  ),
  triggers,
};
const internal: Server = await createServer(Router(services), logger, config.ServerConfig, services).start();
const internalAddress = internal.address();
const internalPort = typeof internalAddress === "object" && internalAddress ? internalAddress.port : 0;

const harness = createStandInHarness({
  services: services as LocalServices,
  internalUrl: `http://${host}:${internalPort}`,
  publicUrl,
  functions,
  logger,
});
answer = harness.listener;
process.send?.({ ready: true, port });

/** Stops answering, then writes what the stores hold, then exits; servers still open after 2 s are abandoned. */
let shuttingDown = false;
async function shutDown() {
  if (shuttingDown) return;
  shuttingDown = true;
  const closed = Promise.all([front, internal].map((server) => new Promise((resolve) => server.close(resolve))));
  front.closeAllConnections();
  internal.closeAllConnections();
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  try {
    await Promise.all([configStoreFactory.flush(), dataStoreFactory.flush()]);
  } catch (error) {
    logger.error({ error }, "The stand-in could not save its data before exiting");
    process.exit(1);
  }
  process.exit(0);
}
process.on("SIGTERM", () => void shutDown());
process.on("SIGINT", () => void shutDown());
// The stand-in never outlives the app that started it.
process.on("disconnect", () => void shutDown());
