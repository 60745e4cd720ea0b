// Package mcpauth signs gem in to remote MCP servers that use OAuth (MCP authorization,
// 2025-11-25), on the official Go SDK's auth and oauthex packages: protected resource and
// authorization server metadata discovery, client ID metadata documents or dynamic client
// registration (or the manifest's clientId), PKCE, the browser on a loopback redirect, and
// the tokens kept sealed (registry/secrets), refreshed before they expire.
//
// Chosen where the specs are silent (Gemini CLI's behaviour where it has one):
//   - Signing in is a step of its own, `gem mcp auth <server>` (Gemini CLI's `/mcp auth`):
//     a session (gem -p, the shell, tools call, the SDK) never opens a browser; a server
//     that asks for a sign-in gem has no token for fails with NeedsSignInError, which names
//     the command.
//   - The redirect is http://127.0.0.1:<free port>/oauth/callback (the manifest's
//     `oauth.redirectUri` when it names a loopback address); the page is opened with
//     $BROWSER, or xdg-open on a desktop, and its URL is always printed, for a machine
//     without a browser. A redirect whose state is not the one sent ends the sign-in: it
//     was not the authorization server's answer to this request.
//   - Tokens are kept per extension, per server and per resource (the server's URL):
//     a token is only ever sent to the URL it was issued for, so a manifest (or an update)
//     that points the server elsewhere gets no token; uninstalling the extension deletes
//     them. They are sealed in $GEM_HOME/secrets/mcp-oauth/<extension>.enc.
//   - A token is refreshed 10 s before it expires (golang.org/x/oauth2); a 401 mid-session
//     refreshes it once and retries; a second refusal asks for a new sign-in.
//   - The metadata, registration and token requests of a server go to public addresses
//     only, unless the server itself is on this machine or the local network and its
//     extension may reach those (the network capability): a server cannot make gem call a
//     local service (a cloud metadata address, a router) by naming it in its metadata. The
//     SDK refuses private and link-local addresses in metadata in any case.
//   - Manifest `oauth` fields (manifest.OAuth) read as Gemini CLI reads them: `enabled:
//     false` turns OAuth off, `clientId`/`clientSecret` a registered client (bound to
//     `issuer` when given), `scopes` replaces the scopes the server asks for, `audiences`
//     go in an `audience` parameter (space-separated) of the authorization request and of
//     every token request, `redirectUri` the redirect (its port included). With
//     `authorizationUrl` and `tokenUrl` nothing is discovered (configured.go): the flow runs
//     on golang.org/x/oauth2 with PKCE and the resource parameter, as `clientId` or a
//     client registered at `registrationUrl` (the SDK's oauthex.RegisterClient); the
//     client's credentials go in the form, as Gemini CLI sends them. Those endpoints are
//     checked when the field is read (https, or http on loopback; on the authorization
//     page's site) and again before anything is sent (the address rule below).
//     `tokenParamName` is checked and not used: Gemini CLI 0.61 parses it and never puts a
//     token in a URL.
//   - gem has no client ID metadata document of its own to publish; GEM_MCP_CLIENT_ID_URL
//     names one (an https URL) to use with authorization servers that accept them, before
//     dynamic registration.
package mcpauth
