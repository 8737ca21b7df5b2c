import { UserStore, util } from './lib';
import type { User } from './lib';

const store = new UserStore();
const ada: User = { id: 1, name: 'Ada' };
store.add(ada);
console.log(store.names().map(util.upper));
