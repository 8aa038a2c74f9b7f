// The app's page as the BFF sends it to a signed-in browser: index.html with the session's JSON in a data block
// (web/src/features/auth/page-session.ts reads it), so the first screen starts without asking who is signed in, and
// the screen's own chunks preloaded (route-preloads.ts).

import { modulePreloadLinks } from './route-preloads.js'

/** The id of the data block; the web app reads it by this id. */
export const SESSION_ELEMENT_ID = 'leadline-session'

/**
 * `html` with `session` as JSON in a `<script type="application/json">` and the preloads of `files` before `</head>`
 * (at the end when there is none). A data block is never run, so the Content-Security-Policy's script rule does not
 * apply to it; every `<` is written as `\u003c`, so no value (a name of `</script>`) can end the block or open a
 * comment.
 */
export function signedInPage(html: string, session: unknown, files: readonly string[] = []): string {
  const head = dataBlock(SESSION_ELEMENT_ID, JSON.stringify(session)) + modulePreloadLinks(files)
  const at = html.indexOf('</head>')
  return at === -1 ? html + head : html.slice(0, at) + head + html.slice(at)
}

/**
 * `json` (JSON text) in a `<script type="application/json">` with `id`, every `<` written `\u003c`: JSON has it only
 * inside strings, where the escape reads the same, so no value can end the block or open a comment.
 */
export function dataBlock(id: string, json: string): string {
  return `<script type="application/json" id="${id}">${json.replaceAll('<', '\\u003c')}</script>`
}
