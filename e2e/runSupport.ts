// What the run and debug tests share: the owner-has-items template and what its input says
// (where each owner's key goes, who owns which item in the end), and the run controls and panels
// as a user finds them: the Run toolbar, its status line, the tabs under the canvas.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { keyGroupOf, keyGroupRange, subtaskOfKeyGroup } from '../engine/graph/keyGroups.js';
import { answerFileDialog, canvas, eventually, PATIENCE_MS } from './helpers.js';

export const EXAMPLE = join(import.meta.dirname, '..', 'assets', 'examples', 'owner-has-items');
export const JOB = JSON.parse(readFileSync(join(EXAMPLE, 'owner-has-items.job.json'), 'utf8')) as {
  name: string;
  settings: { maxParallelism: number; checkpointsRetained: number };
  operators: { id: string; parallelism: number }[];
};
export const OWNERS_PARALLELISM = JOB.operators.find((o) => o.id === 'owners')!.parallelism;

export interface OwnerEvent {
  readonly seq: number;
  readonly type: 'add' | 'move';
  readonly owner: string;
  readonly item: string;
  readonly from?: string;
  readonly to?: string;
}

export function parseEvents(text: string): OwnerEvent[] {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as OwnerEvent);
}

/** The subtask of "owners" that keeps an owner's state (the engine's own key-group arithmetic). */
export function subtaskOf(owner: string): number {
  const max = JOB.settings.maxParallelism;
  return subtaskOfKeyGroup(keyGroupOf(owner, max), OWNERS_PARALLELISM, max);
}

/** "32–63": the key groups of a subtask of "owners", as the State panel writes them. */
export function keyGroupsText(subtask: number): string {
  const range = keyGroupRange(subtask, OWNERS_PARALLELISM, JOB.settings.maxParallelism);
  return `${range.start}–${range.end}`;
}

/** Item -> its owner at the end and the seq of the event that gave it to that owner. */
export function finalOwnership(events: readonly OwnerEvent[]): Map<string, { owner: string; since: number }> {
  const owners = new Map<string, { owner: string; since: number }>();
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    owners.set(e.item, { owner: e.type === 'add' ? e.owner : e.to!, since: e.seq });
  }
  return owners;
}

/** An owner's "items" map at the end, as the state browser lists a map: [item, {since}] in key order. */
export function itemsOf(events: readonly OwnerEvent[], owner: string): [string, { since: number }][] {
  return [...finalOwnership(events)]
    .filter(([, o]) => o.owner === owner)
    .map(([item, o]): [string, { since: number }] => [item, { since: o.since }])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * What out/ownership.jsonl must say after the job has run to the end: every add and every
 * move's arrival written once (no record lost, none written twice), and the owner of each item is
 * the owner of its "owned" record with the highest seq, as the template's description promises.
 */
export function expectOwnershipOutput(text: string, events: readonly OwnerEvent[]): void {
  const records = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { event: string; owner: string; item: string; seq: number });
  const owned = records.filter((r) => r.event === 'owned').map((r) => `${r.item}@${r.seq}`);
  expect(owned.length).toBe(new Set(owned).size);
  expect(owned.sort()).toEqual(events.map((e) => `${e.item}@${e.seq}`).sort());
  const released = records.filter((r) => r.event === 'released').map((r) => `${r.item}@${r.seq}`);
  expect(released.sort()).toEqual(
    events
      .filter((e) => e.type === 'move')
      .map((e) => `${e.item}@${e.seq}`)
      .sort(),
  );
  const last = new Map<string, { owner: string; seq: number }>();
  for (const r of records) {
    if (r.event !== 'owned') continue;
    const before = last.get(r.item);
    if (before === undefined || r.seq > before.seq) last.set(r.item, { owner: r.owner, seq: r.seq });
  }
  const expected = finalOwnership(events);
  expect(new Map([...last].map(([item, o]) => [item, o.owner]))).toEqual(
    new Map([...expected].map(([item, o]) => [item, o.owner])),
  );
}

export const runToolbar = (page: Page) => page.getByRole('toolbar', { name: 'Run' });
export const runButton = (page: Page, name: string) =>
  runToolbar(page).getByRole('button', { name, exact: true });
export const runStatus = (page: Page) => page.getByRole('status', { name: 'Run status' });

/** Waits until the run status line reads `expected` (a string exactly, or a pattern). */
export async function expectStatus(
  page: Page,
  expected: string | RegExp,
  timeoutMs = PATIENCE_MS,
): Promise<string> {
  let text = '';
  await eventually(async () => {
    text = (await runStatus(page).textContent()) ?? '';
    if (typeof expected === 'string') expect(text).toBe(expected);
    else expect(text).toMatch(expected);
  }, timeoutMs);
  return text;
}

/** The names of the run toolbar's buttons that can be pressed now. */
export async function enabledRunButtons(page: Page): Promise<string[]> {
  return runToolbar(page)
    .getByRole('button')
    .evaluateAll((els) =>
      els.filter((e) => !(e as unknown as { disabled: boolean }).disabled).map((e) => e.textContent ?? ''),
    );
}

/** Opens a tab under the canvas and returns its panel. */
export async function openTab(page: Page, name: string): Promise<Locator> {
  await page.getByRole('tab', { name, exact: true }).click();
  const panel = page.getByRole('tabpanel', { name, exact: true });
  await panel.waitFor();
  return panel;
}

/** Answers "Save before running" with Save… and the app's file dialog with `path`. */
export async function saveBeforeRunning(page: Page, title: string, path: string): Promise<void> {
  const prompt = page.getByRole('dialog', { name: 'Save before running' });
  await prompt.waitFor();
  expect(await prompt.getByRole('heading').textContent()).toBe(`Save “${title}” before running?`);
  await prompt.getByRole('button', { name: 'Save…' }).click();
  await answerFileDialog(page, 'Save job as', path, 'Save');
}

export interface CanvasMarks {
  /** "owners#2" for each operator marked active, with the subtask its badge names. */
  readonly operators: string[];
  /** Ids of the edges drawn as the step's edge. */
  readonly edges: string[];
}

/** What the canvas marks of the step shown: the active operator (and subtask) and edge. */
export async function canvasMarks(page: Page): Promise<CanvasMarks> {
  const operators = await canvas(page)
    .locator('.op-card.op-active')
    .evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('data-id')}#${e.getAttribute('data-active-subtask')}`),
    );
  const edges = await canvas(page)
    .getByRole('group', { name: /^Edge / })
    .evaluateAll((els) =>
      els
        .filter((e) => e.querySelector('path.pw-edge-active') !== null)
        .map((e) => /^Edge (\S+) from /.exec(e.getAttribute('aria-label') ?? '')?.[1] ?? '?'),
    );
  return { operators: operators.sort(), edges: edges.sort() };
}
