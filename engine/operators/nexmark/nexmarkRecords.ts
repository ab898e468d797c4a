// The records source.nexmark emits: one plain JSON object per event, with Flink's field names
// and `type` saying which entity it is. Times are epoch ms; prices are cents.

export interface PersonRecord {
  type: 'person';
  id: number;
  name: string;
  emailAddress: string;
  creditCard: string;
  city: string;
  state: string;
  dateTime: number;
  extra: string;
}

export interface AuctionRecord {
  type: 'auction';
  id: number;
  itemName: string;
  description: string;
  initialBid: number;
  reserve: number;
  dateTime: number;
  expires: number;
  seller: number;
  category: number;
  extra: string;
}

export interface BidRecord {
  type: 'bid';
  auction: number;
  bidder: number;
  price: number;
  channel: string;
  url: string;
  dateTime: number;
  extra: string;
}

export type NexmarkRecord = PersonRecord | AuctionRecord | BidRecord;
