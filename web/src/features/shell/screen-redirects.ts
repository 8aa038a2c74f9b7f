import { SETTINGS_HOME } from '../settings/settings-home'

/** Where the app's root sends a browser. */
export const HOME = '/leads'

/**
 * The paths whose route only redirects, by the screen it goes on to. The build preloads that screen's code for a page
 * opened there (vite.config.ts), and the BFF's server render draws that screen for it (server-render.tsx).
 */
export const SCREEN_REDIRECTS: Readonly<Record<string, string>> = { '/': HOME, '/settings': SETTINGS_HOME }
