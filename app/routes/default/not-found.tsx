import { data } from "react-router";

/**
 * Every unmatched path inside the default layout. Throwing lets the layout's ErrorBoundary draw the localized 404
 * page inside the header and footer, with a real 404 status.
 */
export async function loader() {
  throw data(null, { status: 404 });
}

/** A form posted to an unknown path is just as missing: 404, not the 405 React Router gives a route without one. */
export async function action() {
  throw data(null, { status: 404 });
}

/**
 * Never rendered (the loader always throws), but required: a route module without a default component is a
 * resource route, and React Router would answer unmatched paths with a bare response instead of the page.
 */
export default function NotFoundPage() {
  return null;
}
