import { describe, expect, it } from 'vitest';
import { MarketplaceInstanceSchema, type MarketplaceInstance } from './vast-wire';
import { classifyInstance, endpointUrl, isGone } from './instance-status';

const inst = (o: Record<string, unknown>): MarketplaceInstance => MarketplaceInstanceSchema.parse({ id: 7, ...o });
const ports = { '11434/tcp': [{ HostIp: '0.0.0.0', HostPort: '41234' }, { HostIp: '::', HostPort: '41234' }] };

describe('instance status', () => {
  it('is ready only when running with a public IP and the 11434 port mapped', () => {
    expect(classifyInstance(inst({ actual_status: 'running', intended_status: 'running', public_ipaddr: '1.2.3.4\n', ports }), 11434)).toEqual({ kind: 'ready', host: '1.2.3.4', hostPort: 41234 });
    for (const p of [undefined, null, {}, [], { '22/tcp': [{ HostPort: '22' }] }, { '11434/tcp': [] }, { '11434/tcp': null }]) {
      expect(classifyInstance(inst({ actual_status: 'running', public_ipaddr: '1.2.3.4', ports: p }), 11434).kind).toBe('pending');
    }
  });

  it('reads the provisioning steps as pending', () => {
    expect(classifyInstance(inst({ actual_status: null }), 11434)).toMatchObject({ kind: 'pending', status: 'scheduling' });
    expect(classifyInstance(inst({ actual_status: 'created' }), 11434)).toMatchObject({ kind: 'pending', status: 'created' });
    expect(classifyInstance(inst({ actual_status: ' loading ', status_msg: 'Pulling image' }), 11434)).toMatchObject({ kind: 'pending', status: 'loading' });
  });

  it('fails on exited, offline, unknown and an "Error" status_msg', () => {
    for (const s of ['exited', 'offline', 'unknown', 'EXITED']) expect(classifyInstance(inst({ actual_status: s }), 11434).kind).toBe('failed');
    expect(classifyInstance(inst({ actual_status: 'loading', status_msg: 'Error response from daemon: no space left' }), 11434)).toMatchObject({ kind: 'failed' });
    // A usable port wins over a stale message.
    expect(classifyInstance(inst({ actual_status: 'running', status_msg: 'Error earlier', public_ipaddr: '1.2.3.4', ports }), 11434).kind).toBe('ready');
  });

  it('reads null and destroyed as gone', () => {
    expect(isGone(null)).toBe(true);
    expect(isGone(inst({ actual_status: 'destroyed' }))).toBe(true);
    expect(isGone(inst({ actual_status: 'running', intended_status: 'destroyed' }))).toBe(true);
    expect(isGone(inst({ actual_status: 'running' }))).toBe(false);
    expect(classifyInstance(null, 11434).kind).toBe('gone');
  });

  it('builds URLs, bracketing IPv6', () => {
    expect(endpointUrl('1.2.3.4', 41234)).toBe('http://1.2.3.4:41234');
    expect(endpointUrl('2001:db8::1', 1, true)).toBe('https://[2001:db8::1]:1');
  });
});
