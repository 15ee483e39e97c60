export { BenchdeskApiError, clientError, clientProblem, isBenchdeskApiError, toBenchdeskApiError } from './errors';
export { createHttpClient, type HttpClientOptions } from './http-client';
export { createPushIterable, type PushIterable } from './push-iterable';
