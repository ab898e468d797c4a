package dev.pipewright.flink;

import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * A failure the user has to fix (their code threw, a record has no key, a line is not JSON), with
 * the one-line message the local engine would print. It has no cause on purpose: the runner
 * reports the deepest cause's message, and that must be these words, not a library's.
 */
public final class UserError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UserError(String message) {
    super(message, null, false, false);
  }

  /**
   * The exception to throw from a task: the same input fails again on every restart, so Flink must
   * not restart (SuppressRestartsException is found anywhere in the cause chain).
   */
  public static SuppressRestartsException fail(String message) {
    return new SuppressRestartsException(new UserError(message));
  }
}
