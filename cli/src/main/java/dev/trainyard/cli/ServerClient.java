package dev.trainyard.cli;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client half of the resident server: {@code java -cp trainyard-cli.jar
 * dev.trainyard.cli.ServerClient SOCKET ARGS...} hands one {@code trainyard} call (its working
 * directory, environment and arguments) to the {@link ResidentServer} listening on SOCKET, copies
 * what the command prints to this process's standard output and error, and exits with the command's
 * exit code. It loads only JDK classes and this package's {@link ServerProtocol}, so its JVM starts
 * in about the time of {@code java -version} (the launcher scripts run it).
 *
 * <p>Exit code {@link #NOT_SERVED} (75, {@code EX_TEMPFAIL} of BSD's sysexits.h) when the call was
 * not run and the launcher should run it in-process: no server answers on SOCKET, the server
 * declined the command or did not accept it within {@link #ANSWER_TIMEOUT} (it is then never told
 * to go, so it runs nothing), or a {@linkplain ServerProtocol#RERUNNABLE rerunnable} command's
 * server ended before it printed anything. A server that ends after output was copied, or during a
 * {@code submit} (its push may have landed), is exit 4 with a line saying so.
 *
 * <p>Told to stop while the server runs the call (Ctrl-C, SIGTERM, SIGHUP), a shutdown hook sends
 * {@link ServerProtocol#STOP} and waits, at most {@link #STOP_GRACE}, for the server to stop it (a
 * submit before its push, printing whether anything was pushed); the JVM then ends with the
 * signal's exit code (130, 143, 129), as the call in a JVM of its own would.
 */
public final class ServerClient {
  /** The exit code that tells the launcher to run the call in-process. */
  public static final int NOT_SERVED = 75;

  private ServerClient() {}

  /** {@code SOCKET ARGS...}; see the class comment. */
  public static void main(String[] args) {
    watchParent();
    System.exit(
        run(
            args,
            Path.of("").toAbsolutePath(),
            System.getenv(),
            new FileOutputStream(FileDescriptor.out),
            new FileOutputStream(FileDescriptor.err)));
  }

  /**
   * {@link #main} in {@code workingDirectory} with {@code environment}: the exit code; {@link
   * #NOT_SERVED} and a usage line on {@code err} without SOCKET.
   */
  static int run(
      String[] args,
      Path workingDirectory,
      Map<String, String> environment,
      OutputStream out,
      OutputStream err) {
    if (args.length < 1) {
      new Sink(err).write("usage: ServerClient SOCKET ARGS...\n");
      return NOT_SERVED;
    }
    return call(
        Path.of(args[0]),
        new ServerProtocol.Request(
            workingDirectory.toString(), environment, Arrays.asList(args).subList(1, args.length)),
        out,
        err);
  }

  /**
   * Runs {@code request} on the server at {@code socket}, copying its output to {@code out} and
   * {@code err} as it arrives; returns the command's exit code, or {@link #NOT_SERVED} (nothing was
   * run, or nothing printed before the server ended). A stream of ours that cannot be written (a
   * closed pipe: {@code | head -1}) is dropped and the command's own exit code still returned, as a
   * command run in its own JVM ignores it.
   */
  static int call(Path socket, ServerProtocol.Request request, OutputStream out, OutputStream err) {
    return call(socket, request, out, err, ANSWER_TIMEOUT);
  }

  /**
   * How long a server may take to accept or decline a call: one that has not after this is stuck
   * (stopped, or its machine far overloaded); its socket is removed, so it stops once it runs
   * again, and the call runs in its own JVM.
   */
  static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Deletes {@code socket} when it is a socket file: refused, no server listens there (one killed
   * with SIGKILL left it), and the launcher counts socket files towards its 3 servers.
   */
  private static void dropStale(Path socket) {
    try {
      if (Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
          .isOther()) {
        Files.deleteIfExists(socket);
      }
    } catch (IOException e) {
      // Gone already, or not ours to delete: the call runs in its own JVM either way.
    }
  }

  static int call(
      Path socket,
      ServerProtocol.Request request,
      OutputStream out,
      OutputStream err,
      Duration answerTimeout) {
    SocketChannel channel;
    try {
      channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    } catch (IOException | UnsupportedOperationException e) {
      return NOT_SERVED; // no Unix domain sockets here
    }
    Sink stdout = new Sink(out);
    Sink stderr = new Sink(err);
    AtomicInteger state = new AtomicInteger(WAITING);
    CountDownLatch settled = new CountDownLatch(1);
    Thread stopHook = null;
    boolean printed = false;
    boolean went = false;
    boolean rerunnable =
        !request.args().isEmpty() && ServerProtocol.RERUNNABLE.contains(request.args().get(0));
    try (channel) {
      try {
        channel.connect(UnixDomainSocketAddress.of(socket));
      } catch (IOException | RuntimeException e) {
        if (e instanceof ConnectException) {
          dropStale(socket);
        }
        return NOT_SERVED; // no server, a stale socket file, or a path too long for a socket
      }
      String me = System.getProperty("user.name");
      String peer = ServerProtocol.peerUser(channel);
      if (!me.equals(peer)) {
        stderr.write(
            "trainyard: warning: "
                + socket
                + " is answered by "
                + (peer == null ? "an unknown user" : "user " + peer)
                + ", not by "
                + me
                + "; running without the resident server\n");
        return NOT_SERVED;
      }
      DataOutputStream to =
          new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel)));
      ServerProtocol.writeRequest(to, request);
      Thread watchdog = watchdog(channel, state, answerTimeout);
      DataInputStream from =
          new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel)));
      try {
        while (true) {
          byte kind = from.readByte();
          switch (kind) {
            case ServerProtocol.ACCEPTED -> {
              if (!state.compareAndSet(WAITING, ANSWERED)) {
                return gaveUp(socket, answerTimeout, stderr);
              }
              // The hook first, then go: a Ctrl-C between the two would otherwise end this JVM
              // with no hook while the server runs the call (a flaky ServedSubmitTest.stuckServer).
              GoGate gate = new GoGate();
              stopHook = stopHook(channel, settled, rerunnable, stderr, gate);
              if (stopHook == null || !gate.send(to)) {
                return STOPPED_BEFORE_GO; // stopping: the server, never told to go, runs nothing
              }
              went = true; // from here on the server runs the call: never run it here too
            }
            case ServerProtocol.OUT, ServerProtocol.ERR -> {
              byte[] bytes = ServerProtocol.readBytes(from);
              printed = true;
              (kind == ServerProtocol.OUT ? stdout : stderr).write(bytes);
            }
            case ServerProtocol.STOPPED -> settled.countDown();
            case ServerProtocol.EXIT -> {
              return from.readInt();
            }
            case ServerProtocol.DECLINED -> {
              state.compareAndSet(WAITING, ANSWERED);
              return NOT_SERVED;
            }
            default -> throw new IOException("unknown frame " + kind);
          }
        }
      } catch (AsynchronousCloseException e) {
        if (state.get() != GAVE_UP || went) {
          throw e;
        }
        return gaveUp(socket, answerTimeout, stderr);
      } finally {
        state.compareAndSet(WAITING, ANSWERED);
        watchdog.interrupt();
      }
    } catch (EOFException e) {
      return ended(printed, went, rerunnable, stderr, "ended before the command finished");
    } catch (IOException e) {
      return ended(printed, went, rerunnable, stderr, "failed: " + e.getMessage());
    } finally {
      settled.countDown();
      if (stopHook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(stopHook);
        } catch (IllegalStateException e) {
          // This JVM is stopping: the hook is running and has been let go above.
        }
      }
    }
  }

  /**
   * How often {@link #watchParent} looks at the parent process: 20 ms (a read of {@code
   * /proc/PID/stat}), so a launcher killed just before a served submit pushes rarely lets the push
   * out (a fresh user's race: 6 of 8 landed when this was 200 ms).
   */
  private static final long PARENT_POLL_MILLIS = 20;

  /**
   * Ends this JVM (exit 143; its shutdown hook then stops a served call, as for SIGTERM) once the
   * process that started it is gone: the launcher's shell passes SIGINT, SIGTERM and SIGHUP on, but
   * a shell killed with SIGKILL cannot, and its call must not go on pushing unseen. A push the
   * server has started by then still lands (and the client, orphaned, says so), as a push in flight
   * does when a call in its own JVM is killed.
   */
  private static void watchParent() {
    ProcessHandle.current()
        .parent()
        .ifPresent(
            parent -> {
              Thread watch =
                  new Thread(
                      () -> {
                        try {
                          while (parent.isAlive()) {
                            Thread.sleep(PARENT_POLL_MILLIS);
                          }
                          System.exit(143);
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                      },
                      "trainyard-parent-watch");
              watch.setDaemon(true);
              watch.start();
            });
  }

  /** The answer is awaited ... */
  private static final int WAITING = 0;

  /** ... came in time ... */
  private static final int ANSWERED = 1;

  /** ... or did not: the watchdog closed the connection, and the call runs in its own JVM. */
  private static final int GAVE_UP = 2;

  /**
   * How long a stopped client waits for the server to stop the call and say how it ended: the
   * server's own wait for a push in flight ({@code InterruptReport.PUSH_GRACE}, 5 s; not referred
   * to, since this JVM loads no class outside the JDK and this package's protocol) and 5 s more.
   */
  static final Duration STOP_GRACE = Duration.ofSeconds(10);

  /**
   * A shutdown hook for a call the server runs: when this JVM is told to stop (Ctrl-C's SIGINT,
   * SIGTERM, SIGHUP), it sends {@link ServerProtocol#STOP} and waits, at most {@link #STOP_GRACE},
   * until the server has stopped the call (a submit before its push) and printed how it ended, or
   * the call ended; the JVM then ends with the signal's exit code, as a call in its own JVM does.
   * Writes the channel itself, not through the stream the main thread reads from. Null when this
   * JVM is stopping already.
   */
  private static Thread stopHook(
      SocketChannel channel, CountDownLatch settled, boolean rerunnable, Sink stderr, GoGate gate) {
    Thread hook =
        new Thread(
            () -> {
              if (gate.stopping()) {
                stop(channel, settled, rerunnable, stderr, STOP_GRACE);
              }
            },
            "trainyard-stop");
    try {
      Runtime.getRuntime().addShutdownHook(hook);
    } catch (IllegalStateException e) {
      // This JVM is stopping already: its connection ends with it, which the server reads as a
      // stop.
      return null;
    }
    return hook;
  }

  /**
   * What the client returns when this JVM began to stop before it told the server to go: the JVM
   * ends with its signal's code, so the value is not seen (a call in its own JVM stopped this early
   * ends the same way).
   */
  static final int STOPPED_BEFORE_GO = 130;

  /**
   * Go ({@link ServerProtocol#GO}) and the stop hook, in one order: either go was sent before the
   * JVM began to stop (then the hook stops the server's call) or it is never sent (then the server
   * runs nothing and the hook has nothing to stop).
   */
  static final class GoGate {
    private boolean sent;
    private boolean stopping;

    /** Sends go on {@code to} unless this JVM began to stop; whether it was sent. */
    synchronized boolean send(DataOutputStream to) throws IOException {
      if (stopping) {
        return false;
      }
      to.writeByte(ServerProtocol.GO);
      to.flush();
      sent = true;
      return true;
    }

    /** This JVM is stopping: no go from now on; whether go was sent before. */
    synchronized boolean stopping() {
      stopping = true;
      return sent;
    }
  }

  /**
   * What the stop hook does: sends {@link ServerProtocol#STOP} on {@code channel} and waits at most
   * {@code grace} for {@code settled} (the server's {@link ServerProtocol#STOPPED} or the call's
   * end); a call that is not {@linkplain ServerProtocol#RERUNNABLE rerunnable} (a submit) whose
   * stop was not confirmed gets a line on {@code stderr} that its outcome is unknown. A server gone
   * already (the write fails) leaves nothing to stop.
   */
  static void stop(
      SocketChannel channel,
      CountDownLatch settled,
      boolean rerunnable,
      Sink stderr,
      Duration grace) {
    try {
      channel.write(ByteBuffer.wrap(new byte[] {ServerProtocol.STOP}));
      if (!settled.await(grace.toMillis(), TimeUnit.MILLISECONDS) && !rerunnable) {
        stderr.write(
            "trainyard: interrupted; the resident server did not confirm the stop within "
                + grace.toSeconds()
                + " s, so whether the submit pushed is unknown: "
                + UNKNOWN_HINT
                + "\n");
      }
    } catch (IOException e) {
      // The server is gone: nothing left to stop.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int gaveUp(Path socket, Duration answerTimeout, Sink stderr) throws IOException {
    stderr.write(
        "trainyard: warning: the resident server at "
            + socket
            + " did not answer in "
            + answerTimeout.toSeconds()
            + " s; running without it (it stops when it runs again)\n");
    Files.deleteIfExists(socket);
    return NOT_SERVED;
  }

  /** Closes {@code channel} unless answered within {@code timeout} (state WAITING → GAVE_UP). */
  private static Thread watchdog(SocketChannel channel, AtomicInteger state, Duration timeout) {
    Thread watchdog =
        new Thread(
            () -> {
              try {
                Thread.sleep(timeout.toMillis());
                if (state.compareAndSet(WAITING, GAVE_UP)) {
                  channel.close();
                }
              } catch (InterruptedException | IOException e) {
                // answered, or closed already
              }
            },
            "trainyard-answer-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    return watchdog;
  }

  /** One of our output streams; after a failed write (a closed pipe) the rest is dropped. */
  static final class Sink {
    private final OutputStream stream;
    private boolean broken;

    Sink(OutputStream stream) {
      this.stream = stream;
    }

    synchronized void write(String text) {
      write(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Synchronized: a stop hook may write beside the thread copying the server's frames. */
    synchronized void write(byte[] bytes) {
      if (broken) {
        return;
      }
      try {
        stream.write(bytes);
        stream.flush();
      } catch (IOException e) {
        broken = true;
      }
    }
  }

  /** How to find out whether a submit whose end was not seen pushed. */
  private static final String UNKNOWN_HINT =
      "git ls-remote on the GitOps repository shows its branch's tip, and the same submit again"
          + " without --rerun adds only the runs that are missing";

  /**
   * The server ended before the call's exit code. Nothing printed and the call never told to go (so
   * never run), or rerunnable: it runs in its own JVM ({@link #NOT_SERVED}). Else exit 4 and a line
   * (for a {@code submit}: its push may have landed).
   */
  private static int ended(
      boolean printed, boolean went, boolean rerunnable, Sink err, String what) {
    if (!printed && (!went || rerunnable)) {
      return NOT_SERVED;
    }
    err.write(
        "trainyard: error: the resident server "
            + what
            + (rerunnable
                ? "; run the command again"
                : "; whether it pushed is unknown: " + UNKNOWN_HINT)
            + " (TRAINYARD_SERVER=off runs it without the server)\n");
    return Main.EXIT_INTERNAL;
  }
}
