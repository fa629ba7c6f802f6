import { enableCompileCache } from 'node:module';

// Imported first by main.ts: the code of every module loaded after this is cached on disk (NODE_COMPILE_CACHE,
// else the system's temp directory), so a restart skips compiling it again and is ready sooner.
enableCompileCache();
