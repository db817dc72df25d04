/**
 * Device keys come through two doors. The pages issue theirs (the `id_device` cookie, 18 random bytes in base64url,
 * signed) to a browser that signs in, or confirms its sign-up, on our pages; a sibling service names its own in
 * POST /api/user-devices/{key}. A sibling's key is kept in a namespace of its own, so that it is never the same
 * browser as one the pages issued: it does not take over (or end) a page session's device slot, and it never makes a
 * browser known to the sign-in alerts, which only a sign-in or sign-up on our pages does (docs/security.md, "Known
 * browsers"). Otherwise anyone holding the member's tokens could register the key of their own browser and then sign in
 * from it unseen.
 *
 * One namespace for every sibling: the API cannot tell which one calls (they all hold tokens of the members' one app
 * client, and a server-to-server call has no Origin to go by). The prefix cannot occur in a page's key (base64url) nor
 * in a key the API accepts (letters, digits, `-` and `_`), so the two never meet.
 */
const API_DEVICE_KEY_PREFIX = "api:";

/** How a key a sibling registered through the API is stored. */
export function apiDeviceKey(key: string): string {
  return `${API_DEVICE_KEY_PREFIX}${key}`;
}

/** A stored key as the API names the device: a sibling's own key as it gave it, a page's as it is. */
export function deviceKeyAsNamed(storedKey: string): string {
  return storedKey.startsWith(API_DEVICE_KEY_PREFIX) ? storedKey.slice(API_DEVICE_KEY_PREFIX.length) : storedKey;
}

/** The stored keys a key named by the API may stand for: a sibling's registration, or a browser's page session. */
export function storedDeviceKeysNamed(key: string): string[] {
  return [apiDeviceKey(key), key];
}
