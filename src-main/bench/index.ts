import { runStoreBench } from './store-bench';

// `npm run bench`: prints figures; nothing here asserts a time (design §10 targets are compared by reading).
console.log(`benchdesk bench — node ${process.version}, ${process.platform}/${process.arch}`);
await runStoreBench();
