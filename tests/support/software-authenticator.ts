/**
 * A software passkey for tests that drive WebAuthn without a browser: it answers a relying party's creation and
 * request options the way a platform authenticator would, with "none" attestation and an ES256 (P-256) key. Test
 * tooling only: key generation and signatures are node:crypto's, CBOR encoding is @simplewebauthn/server's, and the
 * byte layouts follow WebAuthn Level 3 ("Authenticator Data", "Attested Credential Data", "none" attestation).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoCBOR } from "@simplewebauthn/server/helpers";

// Authenticator data flags (WebAuthn §6.1): user present, user verified, attested credential data included.
const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;
const ATTESTED_CREDENTIAL_DATA = 0x40;
// COSE key parameters (RFC 9053): kty EC2, alg ES256, crv P-256.
const COSE_KTY = 1;
const COSE_ALG = 3;
const COSE_CRV = -1;
const COSE_X = -2;
const COSE_Y = -3;
const KTY_EC2 = 2;
const ALG_ES256 = -7;
const CRV_P256 = 1;

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

function signCount(count: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(count);
  return bytes;
}

export interface SoftwarePasskeyOptions {
  /** The page's origin the browser would report, e.g. http://localhost:4373. */
  origin: string;
  /** Whether the authenticator verifies the user (biometrics, PIN); true for platform passkeys. */
  userVerified?: boolean;
}

export class SoftwarePasskey {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private counter = 0;
  private userHandle: string | undefined;

  constructor(private readonly options: SoftwarePasskeyOptions) {
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" }));
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private flags(extra = 0): number {
    return USER_PRESENT | (this.options.userVerified === false ? 0 : USER_VERIFIED) | extra;
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin = this.options.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create() for these options, as the JSON a browser's toJSON() gives. */
  create(
    options: PublicKeyCredentialCreationOptionsJSON,
    overrides: { origin?: string; rpId?: string } = {},
  ): RegistrationResponseJSON {
    const rpId = overrides.rpId ?? options.rp.id ?? new URL(this.options.origin).hostname;
    this.userHandle = options.user.id;
    const jwk = this.publicKey.export({ format: "jwk" });
    const coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [COSE_KTY, KTY_EC2],
        [COSE_ALG, ALG_ES256],
        [COSE_CRV, CRV_P256],
        [COSE_X, Buffer.from(jwk.x!, "base64url")],
        [COSE_Y, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(ATTESTED_CREDENTIAL_DATA)]),
      signCount(this.counter),
      Buffer.alloc(16), // AAGUID: all zeros, as with "none" attestation
      idLength,
      this.credentialId,
      coseKey,
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, never>>([
        ["fmt", "none"],
        ["attStmt", new Map<string, never>()],
        ["authData", authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge, overrides.origin)),
        attestationObject: b64url(attestationObject),
        transports: ["internal", "hybrid"],
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get() for these options, signed with this passkey's key; the counter goes up. */
  get(options: PublicKeyCredentialRequestOptionsJSON, overrides: { origin?: string } = {}): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(this.options.origin).hostname;
    this.counter += 1;
    const authenticatorData = Buffer.concat([sha256(rpId), Buffer.from([this.flags()]), signCount(this.counter)]);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, overrides.origin);
    // ES256 signatures are DER-encoded ECDSA over authenticatorData ‖ SHA-256(clientDataJSON) (WebAuthn §6.3.3).
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }
}
