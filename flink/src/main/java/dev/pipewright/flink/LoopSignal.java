package dev.pipewright.flink;

/**
 * The record the loop's control input carries to a loop head (issue 29, design note §2.2): TELL,
 * every regular input of the loop is over and the loop was empty at a cut, so the head starts its
 * final firing. The control input's end (after CLOSE) is not a record: the reader's input ends.
 * An enum: Flink serializes it without Kryo, and a deserialized TELL is the constant itself, so a
 * head may compare it by identity.
 */
public enum LoopSignal {
  TELL
}
