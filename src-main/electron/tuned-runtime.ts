import { tuneRuntime } from '../runtime-tuning';

// Imported first by main.ts: modules run in import order, so the thread pool size and heap
// setting of the headless server apply before the store and API code of the app is loaded.
tuneRuntime();
