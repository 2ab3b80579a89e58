export { ExitStatus, runCli, usage } from './cli.js';
export { CliError, CliErrorCode } from './cli-error.js';
export type { CliContext } from './command.js';
export { runDemo } from './demo/demo.js';
export type { DemoOptions } from './demo/demo-options.js';
export { checkUiOptions, startUi, type UiOptions, type UiServer } from './ui/ui-server.js';
