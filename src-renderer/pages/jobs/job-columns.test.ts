import { describe, expect, it } from 'vitest';
import { gridTemplate, shownColumns } from './job-columns';

describe('the Jobs list columns', () => {
  it('adds the question, agent and sweep from 1440 px, the kind from 1100 px, the job id from 1800 px', () => {
    expect(shownColumns(1024, null)).toEqual(['status', 'model', 'created', 'duration', 'cost', 'message']);
    expect(shownColumns(1280, null)).toEqual(['status', 'kind', 'model', 'created', 'duration', 'cost', 'message']);
    expect(shownColumns(1440, null)).toEqual(['status', 'kind', 'model', 'question', 'agent', 'sweep', 'created', 'duration', 'cost', 'message']);
    expect(shownColumns(1920, null)).toContain('id');
  });

  it('a choice wins over the width, and the grid has one track per shown column', () => {
    const cols = shownColumns(1024, ['question']);
    expect(cols).toEqual(['status', 'model', 'question', 'created', 'duration', 'cost', 'message']);
    expect(gridTemplate(cols).split(' ').filter((t) => !t.startsWith('0.')).length).toBeGreaterThan(0);
    expect(gridTemplate(['status', 'agent'])).toBe('100px 76px');
  });
});
