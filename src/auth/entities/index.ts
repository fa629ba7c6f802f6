export { User } from './user.entity';
export { Customer } from './customer.entity';
export { AppUser } from './app-user.entity';
export { SmsCode } from './sms-code.entity';
export { Folder } from './folder.entity';
