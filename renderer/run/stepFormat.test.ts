import { describe, expect, it } from 'vitest';
import type { StepView } from '../../engine/protocol/protocol.js';
import {
  accessRow,
  formatValue,
  inlineValue,
  operatorWatermarkText,
  stepHeading,
  stepKindText,
  stepOrigin,
} from './stepFormat';

const step: StepView = {
  seq: 12,
  operator: 'owners',
  subtask: 2,
  kind: 'record',
  record: { type: 'move', owner: 'o7', item: 'i3' },
  key: 'o7',
  edge: { id: 'events-to-owners', fromSubtask: 0, feedback: false },
  emitted: [],
  state: [],
};

describe('step formatting', () => {
  it('heads a step with its number, subtask and kind', () => {
    expect(stepHeading(step)).toBe('Step 12: owners#2, record delivered');
    expect(stepKindText({ kind: 'barrier', checkpointId: 4 })).toBe('checkpoint barrier of checkpoint 4');
    expect(stepKindText({ kind: 'end' })).toBe('end of input');
  });

  it('words watermark and timer steps with their event times, as the Metrics panel writes them', () => {
    const now = Date.UTC(2024, 0, 1, 18, 0, 0);
    const watermark: StepView = {
      ...step,
      operator: 'windows',
      kind: 'watermark',
      record: undefined,
      key: undefined,
      watermark: Date.UTC(2024, 0, 1, 12, 0, 5),
      operatorWatermark: Date.UTC(2024, 0, 1, 12, 0, 3),
    };
    expect(stepHeading(watermark, now)).toBe('Step 12: windows#2, watermark 12:00:05');
    expect(operatorWatermarkText(watermark, now)).toBe('12:00:03');
    expect(operatorWatermarkText({}, now)).toMatch(/none yet/);
    expect(stepKindText({ kind: 'watermark', watermark: 5250 })).toBe('watermark 5,250 ms');
    const timer: StepView = {
      ...step,
      kind: 'timer',
      record: undefined,
      edge: undefined,
      key: 'o7',
      timer: { domain: 'eventTime', timestamp: Date.UTC(2024, 0, 1, 12, 0, 10) },
    };
    expect(stepHeading(timer, now)).toBe('Step 12: owners#2, event-time timer 12:00:10 fires for key o7');
    expect(
      stepKindText({ ...timer, key: ['o7', 3], timer: { domain: 'processingTime', timestamp: 40 } }),
    ).toBe('processing-time timer 40 ms fires for key ["o7",3]');
    expect(stepOrigin(timer)).toMatch(/watermark passed the timer/);
    expect(stepKindText({ kind: 'idle' })).toBe('input went idle');
  });

  it('says which edge and upstream subtask a record came through', () => {
    expect(stepOrigin(step)).toBe('edge events-to-owners from upstream subtask 0');
    expect(stepOrigin({ ...step, edge: { id: 'transfer', fromSubtask: 3, feedback: true } })).toBe(
      'edge transfer (feedback) from upstream subtask 3',
    );
    expect(stepOrigin({ ...step, operator: 'events', subtask: 0, kind: 'produce', edge: undefined })).toBe(
      'read by source events#0',
    );
  });

  it('formats values as JSON, keeping strings and numbers apart', () => {
    expect(formatValue('7')).toBe('"7"');
    expect(formatValue(7)).toBe('7');
    expect(formatValue(undefined)).toBe('undefined');
    expect(formatValue({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(inlineValue({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(inlineValue('x'.repeat(10), 5)).toBe('"xxx…');
  });

  it('shows a state access as before → after', () => {
    expect(
      accessRow({ state: 'items', type: 'map', op: 'write', key: 'o7', element: 'i3', after: { since: 4 } }),
    ).toEqual({
      state: 'items',
      type: 'map',
      op: 'write',
      key: '"o7"',
      element: '"i3"',
      change: '— → {"since":4}',
    });
    expect(
      accessRow({ state: 'items', type: 'map', op: 'delete', key: 'o7', element: 'i3', before: { since: 1 } })
        .change,
    ).toBe('{"since":1} → (deleted)');
    expect(accessRow({ state: 'count', type: 'value', op: 'read', key: 'k', before: 3 }).change).toBe('3');
    expect(accessRow({ state: 'count', type: 'value', op: 'read', key: 'k' }).element).toBe('—');
  });
});
