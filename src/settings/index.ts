/** The settings module's public surface: import from here, not from its files. */
export { SettingsModule } from './settings.module';
export { maskSecret, SettingsService } from './settings.service';
export type { TenantSettings } from './settings.service';
