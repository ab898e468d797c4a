package dev.pipewright.flink;

/**
 * What a loop's control source tells its head on the head's second input (design note §2.2). The
 * source sends TELL once the enumerator has seen a cut with every head AWAITING and the loop empty;
 * CLOSE is not a signal but the end of that input. An enum (a final class with one constant): Flink
 * serializes it without Kryo, and a deserialized TELL is the constant itself, so a head may compare
 * it by identity.
 */
public enum LoopSignal {
  TELL
}
