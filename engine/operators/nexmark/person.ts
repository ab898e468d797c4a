// A new person: the k-th person event makes person FIRST_PERSON_ID + k, living in one of a few
// western US cities and states (few, so that q3 finds matches in small runs).

import { lastPersonId } from './entityIds.js';
import type { EventRandom } from './eventRandom.js';
import { FIRST_PERSON_ID, type NexmarkConfig } from './nexmarkConfig.js';
import type { PersonRecord } from './nexmarkRecords.js';
import { randomExtra, randomWord } from './randomStrings.js';

const STATES = ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'];
const CITIES = [
  'Phoenix',
  'Los Angeles',
  'San Francisco',
  'Boise',
  'Portland',
  'Bend',
  'Redmond',
  'Seattle',
  'Kent',
  'Cheyenne',
];
const FIRST_NAMES = [
  'Peter',
  'Paul',
  'Luke',
  'John',
  'Saul',
  'Vicky',
  'Kate',
  'Julie',
  'Sarah',
  'Deiter',
  'Walter',
];
const LAST_NAMES = ['Shultz', 'Abrams', 'Spencer', 'White', 'Bartels', 'Walton', 'Smith', 'Jones', 'Noris'];

const pick = (random: EventRandom, list: readonly string[]): string => list[random.nextInt(list.length)]!;

function creditCard(random: EventRandom): string {
  const groups: string[] = [];
  for (let i = 0; i < 4; i++) groups.push(String(random.nextInt(10_000)).padStart(4, '0'));
  return groups.join(' ');
}

export function makePerson(
  config: NexmarkConfig,
  eventNumber: number,
  timestamp: number,
  random: EventRandom,
): PersonRecord {
  const id = lastPersonId(config, eventNumber) + FIRST_PERSON_ID;
  const name = `${pick(random, FIRST_NAMES)} ${pick(random, LAST_NAMES)}`;
  const emailAddress = `${randomWord(random, 7)}@${randomWord(random, 5)}.com`;
  const card = creditCard(random);
  const city = pick(random, CITIES);
  const state = pick(random, STATES);
  const size = 8 + name.length + emailAddress.length + card.length + city.length + state.length;
  const extra = randomExtra(random, size, config.avgPersonByteSize);
  return {
    type: 'person',
    id,
    name,
    emailAddress,
    creditCard: card,
    city,
    state,
    dateTime: timestamp,
    extra,
  };
}
