/** The data-rows module's public surface: import from here, not from its files. */
export { DataRowsModule } from './data-rows.module';
