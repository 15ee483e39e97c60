import { describe, expect, it } from 'vitest';
import type { Health } from '../../shared';
import { clientError } from '../../shared/client';
import { gateState } from './AuthGate';
import { nextIndex } from './ToggleGroup';

const enabled: Health = { status: 'ok', auth: 'enabled', token_sources: ['environment'] };
const probe = (status: 'pending' | 'success' | 'error', error: ReturnType<typeof clientError> | null = null) => ({ status, error, fetching: status === 'pending' });

describe('what browser mode shows before the pages', () => {
  it('the desktop app is always in', () => {
    expect(gateState({ transport: 'electron', health: {}, token: null, probe: probe('pending') })).toEqual({ screen: 'app' });
  });

  it('waits for the API, then says when it does not answer', () => {
    expect(gateState({ transport: 'http', health: {}, token: 't', probe: probe('pending') }).screen).toBe('loading');
    const down = clientError(503, 'upstream_unreachable', 'cannot reach the benchdesk API');
    expect(gateState({ transport: 'http', health: { error: down }, token: 't', probe: probe('pending') })).toMatchObject({ screen: 'unreachable' });
  });

  it('asks for a token only where the server wants one, and says why', () => {
    expect(gateState({ transport: 'http', health: { data: { status: 'ok', auth: 'disabled' } }, token: null, probe: probe('pending') }).screen).toBe('app');
    expect(gateState({ transport: 'http', health: { data: { status: 'ok', auth: 'unconfigured' } }, token: null, probe: probe('pending') }).screen).toBe('unconfigured');
    expect(gateState({ transport: 'http', health: { data: enabled }, token: null, probe: probe('pending') })).toMatchObject({ screen: 'sign-in', reason: 'no-token' });
    expect(gateState({ transport: 'http', health: { data: enabled }, token: 't', probe: probe('pending') }).screen).toBe('loading');
    expect(gateState({ transport: 'http', health: { data: enabled }, token: 't', probe: probe('error', clientError(401, 'unauthorized', 'no')) })).toMatchObject({ screen: 'sign-in', reason: 'refused' });
    expect(gateState({ transport: 'http', health: { data: enabled }, token: 't', probe: probe('error', clientError(401, 'auth_blocked', 'wait')) })).toMatchObject({ screen: 'sign-in', reason: 'blocked' });
    expect(gateState({ transport: 'http', health: { data: enabled }, token: 't', probe: probe('success') }).screen).toBe('app');
  });
});

describe('toggle group keys', () => {
  it('arrows move and wrap, Home and End jump, other keys do nothing', () => {
    expect(nextIndex('ArrowRight', 0, 3)).toBe(1);
    expect(nextIndex('ArrowRight', 2, 3)).toBe(0);
    expect(nextIndex('ArrowLeft', 0, 3)).toBe(2);
    expect(nextIndex('ArrowDown', 1, 3)).toBe(2);
    expect(nextIndex('Home', 2, 3)).toBe(0);
    expect(nextIndex('End', 0, 3)).toBe(2);
    expect(nextIndex('Enter', 0, 3)).toBeNull();
  });
});
