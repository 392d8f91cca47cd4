// Forms posted to Portico's own pages (the consent, sign-in and agents pages, the share page).

/**
 * Whether a form was sent from another site than Portico's own pages (login CSRF: a site signing a
 * victim's browser into the attacker's workspace). The browser's `Sec-Fetch-Site` decides when sent
 * (only `same-origin`, or `none` for a person's own navigation, pass); without it an `Origin` other
 * than Portico's (PUBLIC_URL, or the address the request came to) is refused; a client sending
 * neither (not a browser) is not a browser another site could drive.
 */
export function fromElsewhere(req: Request, publicUrl: string): boolean {
  const site = req.headers.get('sec-fetch-site')
  if (site !== null) return site !== 'same-origin' && site !== 'none'
  const origin = req.headers.get('origin')
  if (origin === null) return false
  // A request whose Host no URL parser takes came to no address of Portico's own (request-headers.ts).
  return origin !== new URL(publicUrl).origin && !(URL.canParse(req.url) && origin === new URL(req.url).origin)
}
