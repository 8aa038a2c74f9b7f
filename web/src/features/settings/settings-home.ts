/**
 * Where `/settings` sends a browser: its first tab. The route redirects here, and the build preloads this screen's code
 * for a page opened at `/settings` (SCREEN_REDIRECTS), so that the redirect waits for no chunk.
 */
export const SETTINGS_HOME = '/settings/pipelines'
