/** The console module's public surface: import from here, not from its files. */
export { ConsoleModule } from './console.module';
export { CONSOLE_SESSION_ROUTES } from './console-paths';
