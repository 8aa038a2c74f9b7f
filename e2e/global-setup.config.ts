import { watchStrayProcesses } from './stray-processes.js'

// Playwright's global setup takes a module's default export; what it returns is the run's teardown.
export default watchStrayProcesses
