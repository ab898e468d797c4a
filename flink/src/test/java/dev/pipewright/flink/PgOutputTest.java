package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * pgoutput's messages decoded against the local engine's reading of the very same bytes: each
 * expected record is what pg-logical-replication's parser and changeRecord.ts printed in Node for
 * the hex beside it (a table public.t of id int4 (the key), name text, "2" jsonb, big text, with
 * a key tuple, an old row, an unchanged TOAST value with and without an old row to take it from).
 */
class PgOutputTest {
  private static final String RELATION = "52000040007075626c69630074006400040169640000000017ffffffff006e616d650000000019ffffffff"
      + "00320000000edaffffffff006269670000000019ffffffff";

  private static PgOutput.Message decode(PgOutput decoder, String hex) {
    return decoder.decode(ByteBuffer.wrap(HexFormat.of().parseHex(hex)));
  }

  private static String change(String hex) {
    PgOutput decoder = new PgOutput();
    assertInstanceOf(PgOutput.Other.class, decode(decoder, RELATION));
    PgOutput.Change change = assertInstanceOf(PgOutput.Change.class, decode(decoder, hex));
    assertEquals("public", change.schema());
    assertEquals("t", change.name());
    return change.text();
  }

  @Test
  void insert() {
    assertEquals("{\"op\":\"insert\",\"before\":null,\"after\":{\"2\":{\"x\":[1,2.5]},\"id\":1,\"name\":\"a \\\"b\\\"\",\"big\":\"long\"}}",
        change("49000040004e000474000000013174000000056120226222740000000f7b2278223a205b312c20322e355d7d74000000046c6f6e67"));
  }

  @Test
  void updateOfTheKeyGivesTheOldKey() {
    assertEquals("{\"op\":\"update\",\"before\":{\"id\":1},\"after\":{\"2\":null,\"id\":2,\"name\":\"é\"}}",
        change("55000040004b00047400000001316e6e6e4e00047400000001327400000002c3a96e75"));
  }

  @Test
  void updateWithTheOldRowFillsUnchangedToast() {
    assertEquals("{\"op\":\"update\",\"before\":{\"2\":null,\"id\":2,\"name\":\"é\",\"big\":\"long\"},"
        + "\"after\":{\"2\":3,\"id\":2,\"name\":null,\"big\":\"long\"}}",
        change("55000040004f00047400000001327400000002c3a96e74000000046c6f6e674e00047400000001326e74000000013375"));
  }

  @Test
  void updateWithoutOldRowLeavesUnchangedToastOut() {
    assertEquals("{\"op\":\"update\",\"before\":null,\"after\":{\"2\":null,\"id\":2,\"name\":\"z\"}}",
        change("55000040004e000474000000013274000000017a6e75"));
  }

  @Test
  void deletes() {
    assertEquals("{\"op\":\"delete\",\"before\":{\"id\":2},\"after\":null}",
        change("44000040004b00047400000001326e6e6e"));
    assertEquals("{\"op\":\"delete\",\"before\":{\"2\":true,\"id\":2,\"name\":\"z\",\"big\":\"long\"},\"after\":null}",
        change("44000040004f000474000000013274000000017a74000000047472756574000000046c6f6e67"));
  }

  @Test
  void beginAndCommitGiveTheirPositions() {
    PgOutput decoder = new PgOutput();
    // Begin: final LSN 0/16B3748, commit time, xid 741.
    PgOutput.Begin begin = assertInstanceOf(PgOutput.Begin.class,
        decode(decoder, "42" + "00000000016b3748" + "0002b8f0c1a2b3c4" + "000002e5"));
    assertEquals(0x16B3748L, begin.commitLsn());
    // Commit: flags, commit LSN 0/16B3748, end LSN 1/16B3778, commit time.
    PgOutput.Commit commit = assertInstanceOf(PgOutput.Commit.class,
        decode(decoder, "43" + "00" + "00000000016b3748" + "00000001016b3778" + "0002b8f0c1a2b3c4"));
    assertEquals(0x16B3748L, commit.commitLsn());
    assertEquals(0x1016B3778L, commit.endLsn());
  }

  @Test
  void truncateAndOtherMessagesAreNotChanges() {
    PgOutput decoder = new PgOutput();
    decode(decoder, RELATION);
    // Truncate of one relation (16384), no options: the local source emits nothing for it.
    assertEquals(new PgOutput.Other('T'), decode(decoder, "54" + "00000001" + "00" + "00004000"));
    // Origin.
    assertEquals(new PgOutput.Other('O'), decode(decoder, "4f" + "0000000000000001" + "6f00"));
  }

  @Test
  void aChangeBeforeItsRelationIsAnError() {
    PgOutput decoder = new PgOutput();
    assertThrows(IllegalStateException.class, () -> decode(decoder, "44000040004b00047400000001326e6e6e"));
  }
}
