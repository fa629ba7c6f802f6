import { Inject, Injectable } from '@nestjs/common';
import { hash } from '@node-rs/bcrypt';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/** bcrypt through a native library, off the event loop, at the configured cost (10 at least). */
@Injectable()
export class PasswordHasher {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  hash(plain: string): Promise<string> {
    return hash(plain, { cost: this.config.bcryptCost });
  }
}
