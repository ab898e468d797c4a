// PostgreSQL's log positions (LSNs), "16/B374D848" as the server writes them: 64-bit numbers
// compared as bigints, kept in checkpoints as the server's text.

export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  if (high === undefined || low === undefined || !/^[0-9A-Fa-f]+$/.test(high + low)) {
    throw new Error(`not a log position (LSN): ${JSON.stringify(text)}`);
  }
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** The LSN a replication message's header holds at `offset` (8 bytes, big-endian). */
export function readLsn(buffer: Buffer, offset: number): bigint {
  return buffer.readBigUInt64BE(offset);
}
