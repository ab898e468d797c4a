package dev.pipewright.flink;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One worker process (PROTOCOL.md, "The worker pipe"): started from the plan's command, frames to
 * its stdin, frames from its stdout, its stderr inherited (it lands in the runner's log, stderr).
 *
 * <p>A thread reads stdout into a queue so the task thread waits on the queue, which Flink can
 * interrupt when it cancels the task; a read blocked on a pipe could not be, and a task that does
 * not stop on cancel gets its TaskManager killed. It costs one hand-off per frame, not per record.
 */
final class WorkerProcess implements AutoCloseable {
  /** What the reader thread puts in the queue when stdout ends or fails. */
  private static final Object END = new Object();

  private final String name;
  private final Process process;
  private final OutputStream stdin;
  private final BlockingQueue<Object> frames = new LinkedBlockingQueue<>();
  private final Thread reader;
  private volatile IOException readFailure;

  private WorkerProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    this.stdin = new BufferedOutputStream(process.getOutputStream(), 1 << 16);
    DataInputStream stdout = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
    this.reader = new Thread(() -> {
      try {
        for (byte[] frame; (frame = Frames.read(stdout)) != null; ) {
          frames.add(frame);
          notifyFrame();
        }
      } catch (IOException e) {
        readFailure = e;
      } finally {
        frames.add(END);
        notifyFrame();
      }
    }, "pipewright " + name + " reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Called (on the reader thread) after each frame, and at the end, once set. */
  private volatile Runnable onFrame;

  /** Tells `listener` of each frame from now on (JsOperator hands it to the task's mailbox). */
  void onFrame(Runnable listener) {
    onFrame = listener;
    if (!frames.isEmpty()) listener.run();
  }

  private void notifyFrame() {
    Runnable listener = onFrame;
    if (listener == null) return;
    try {
      listener.run();
    } catch (RuntimeException e) {
      // The task's mailbox is closed: the task is ending, nobody waits for this frame.
    }
  }

  /** Starts `command`; `name` says which worker in messages ("worker of operator "x" subtask 0"). */
  static WorkerProcess start(List<String> command, String name) throws IOException {
    if (command.isEmpty()) throw new IOException("the plan names no worker command");
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      // No such program, no permission: the TaskManager lacks what the job needs, a restart would
      // fail the same way (on the same TaskManagers) and only bury the reason under three more
      // failures. So no restarts, as for a user's error: one line saying what to install.
      throw UserError.fail(cannotStart(command, name, e));
    }
    return new WorkerProcess(name, process);
  }

  /**
   * The line for a worker that cannot be started. A program named without a folder (the plan's
   * `node`) that is not there was looked for on the PATH: the TaskManager needs it installed.
   */
  static String cannotStart(List<String> command, String name, IOException e) {
    String program = command.get(0);
    String reason = String.valueOf(e.getMessage());
    boolean onPath = !program.contains("/") && !program.contains(java.io.File.separator);
    if (onPath && reason.contains("error=2,")) {
      String install = program.equals("node") ? " (install Node.js 20 or later on every TaskManager)" : "";
      return "cannot start the " + name + ": `" + program + "` was not found on the TaskManager's PATH" + install;
    }
    return "cannot start the " + name + " (" + String.join(" ", command) + "): " + reason;
  }

  /** Sends one frame. A broken pipe means the worker died: an IOException, which Flink restarts. */
  void send(CharSequence json) throws IOException {
    try {
      Frames.write(stdin, json);
      stdin.flush();
    } catch (IOException e) {
      throw died("could not be written to (" + e.getMessage() + ")");
    }
  }

  /** The next frame from the worker; waits (interruptibly) for it. */
  byte[] receive() throws IOException, InterruptedException {
    return unwrap(frames.take());
  }

  /** The next frame if one has come, else null; a dead worker fails as in receive(). */
  byte[] poll() throws IOException {
    Object frame = frames.poll();
    return frame == null ? null : unwrap(frame);
  }

  private byte[] unwrap(Object frame) throws IOException {
    if (frame == END) {
      frames.add(END); // every later receive fails the same way
      IOException failure = readFailure;
      throw died(failure == null ? "ended its output" : "sent a broken frame (" + failure.getMessage() + ")");
    }
    return (byte[]) frame;
  }

  private IOException died(String what) {
    String status = "";
    try {
      if (process.waitFor(500, TimeUnit.MILLISECONDS)) status = ", exit status " + process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new IOException("the " + name + " " + what + status);
  }

  /**
   * Ends the worker. `graceful`: it is between batches, so it gets `close` and a moment to exit
   * with status 0; otherwise (a failure, a cancel) it is killed at once. Either way nothing is left
   * running.
   */
  void close(boolean graceful) {
    try {
      if (graceful && process.isAlive()) {
        try {
          send("{\"t\":\"close\"}");
          stdin.close();
          process.waitFor(2, TimeUnit.SECONDS);
        } catch (IOException ignored) {
          // already gone
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    } finally {
      if (process.isAlive()) process.destroyForcibly();
      try {
        stdin.close();
      } catch (IOException ignored) {
        // the pipe is gone with the process
      }
    }
  }

  @Override
  public void close() {
    close(false);
  }
}
