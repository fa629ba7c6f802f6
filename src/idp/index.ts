// The IdP module's public surface: other modules import from '../idp', never from its files.
export { IdpModule } from './idp.module';
