// The web app's server render (web/src/server-render.tsx, built into web/dist-server/): the BFF draws a signed-in
// page's first screen from the answers it read for it, so the browser paints the screen before the app's code has
// run; the app then draws it again in its place (docs/decisions/0092-screens-drawn-by-the-server.md).

import { existsSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import type { Logger } from 'pino'
import { withDeadline } from '@leadline/shared/deadline'
import type { PageAnswers } from './page-answers.js'

/**
 * How long a page waits for its screen to be drawn once its answers are in: a screen takes 5–15 ms here once its
 * code has run once. A render that takes longer is not waited for; the page goes without it, as before.
 */
export const SCREEN_RENDER_WAIT_MS = 100

/** What web/src/server-render.tsx exports (checked as it loads: the build is another package's). */
interface RenderModule {
  renderScreen(screen: {
    url: string
    session: unknown
    answers: Record<string, unknown>
  }): Promise<{ html: string } | { notDrawn: string }>
}

function isRenderModule(value: unknown): value is RenderModule {
  return typeof value === 'object' && value !== null && typeof (value as RenderModule).renderScreen === 'function'
}

export interface ScreenRenderer {
  /** The screen at `url` (path and query) as HTML, or undefined when it cannot be drawn here. Never throws. */
  render(url: string, session: unknown, answers: PageAnswers): Promise<string | undefined>
  /** Settles once the module has loaded, or has failed to (then nothing is drawn). */
  readonly loaded: Promise<boolean>
}

/** No server render: every page goes as the build wrote it. */
export const NO_SCREEN_RENDER: ScreenRenderer = {
  render: () => Promise.resolve(undefined),
  loaded: Promise.resolve(false),
}

/**
 * Loads the server render from `file` in the background (the BFF answers meanwhile, drawing nothing). A missing file
 * (the web app built without it) or a module that fails to load leaves pages as the build wrote them.
 */
export function loadScreenRenderer(file: string, logger: Logger, waitMs = SCREEN_RENDER_WAIT_MS): ScreenRenderer {
  if (!existsSync(file)) {
    logger.info({ file }, 'no server render of the web app: its screens are drawn in the browser alone')
    return NO_SCREEN_RENDER
  }
  let module: RenderModule | undefined
  const loaded = import(pathToFileURL(file).href).then(
    (value: unknown) => {
      if (isRenderModule(value)) module = value
      else logger.warn({ file }, 'the server render of the web app exports no renderScreen: not used')
      return module !== undefined
    },
    (error: unknown) => {
      logger.warn({ err: error, file }, 'the server render of the web app failed to load: not used')
      return false
    },
  )
  return {
    loaded,
    async render(url, session, answers) {
      if (module === undefined || answers.size === 0) return undefined
      try {
        const parsed: Record<string, unknown> = {}
        for (const [path, text] of answers) parsed[path] = JSON.parse(text)
        const drawn = await withDeadline(module.renderScreen({ url, session, answers: parsed }), waitMs, undefined)
        if (drawn === undefined) logger.debug({ url }, 'a screen took too long to draw on the server')
        else if ('notDrawn' in drawn) logger.debug({ url, why: drawn.notDrawn }, 'a screen was not drawn on the server')
        return drawn !== undefined && 'html' in drawn && typeof drawn.html === 'string' ? drawn.html : undefined
      } catch (error) {
        // A screen that throws on the server is drawn by the browser, as every screen was before.
        logger.warn({ err: error, url }, 'a screen failed to render on the server')
        return undefined
      }
    },
  }
}
