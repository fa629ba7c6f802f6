// class-transformer's metadata store: its package has no exports map, and ships the declaration apart from the code.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
