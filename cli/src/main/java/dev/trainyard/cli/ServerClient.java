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
import java.util.concurrent.atomic.AtomicBoolean;

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
 * declined the command, or the server ended before the command printed anything (every served
 * command can be run again from the start). A server that ends after output was copied is exit 4
 * with a line saying so.
 */
public final class ServerClient {
  /** The exit code that tells the launcher to run the call in-process. */
  public static final int NOT_SERVED = 75;

  private ServerClient() {}

  /** {@code SOCKET ARGS...}; see the class comment. */
  public static void main(String[] args) {
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
    AtomicBoolean answered = new AtomicBoolean();
    boolean printed = false;
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
      Thread watchdog = watchdog(channel, answered, answerTimeout);
      DataInputStream from =
          new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel)));
      try {
        while (true) {
          byte kind = from.readByte();
          switch (kind) {
            case ServerProtocol.ACCEPTED -> answered.set(true);
            case ServerProtocol.OUT, ServerProtocol.ERR -> {
              byte[] bytes = ServerProtocol.readBytes(from);
              printed = true;
              (kind == ServerProtocol.OUT ? stdout : stderr).write(bytes);
            }
            case ServerProtocol.EXIT -> {
              return from.readInt();
            }
            case ServerProtocol.DECLINED -> {
              answered.set(true);
              return NOT_SERVED;
            }
            default -> throw new IOException("unknown frame " + kind);
          }
        }
      } catch (AsynchronousCloseException e) {
        if (answered.get()) {
          throw e;
        }
        stderr.write(
            "trainyard: warning: the resident server at "
                + socket
                + " did not answer in "
                + answerTimeout.toSeconds()
                + " s; running without it (it stops when it runs again)\n");
        Files.deleteIfExists(socket);
        return NOT_SERVED;
      } finally {
        answered.set(true);
        watchdog.interrupt();
      }
    } catch (EOFException e) {
      return ended(printed, stderr, "ended before the command finished");
    } catch (IOException e) {
      return ended(printed, stderr, "failed: " + e.getMessage());
    }
  }

  /** Closes {@code channel} unless {@code answered} within {@code timeout}. */
  private static Thread watchdog(SocketChannel channel, AtomicBoolean answered, Duration timeout) {
    Thread watchdog =
        new Thread(
            () -> {
              try {
                Thread.sleep(timeout.toMillis());
                if (!answered.get()) {
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
  private static final class Sink {
    private final OutputStream stream;
    private boolean broken;

    Sink(OutputStream stream) {
      this.stream = stream;
    }

    void write(String text) {
      write(text.getBytes(StandardCharsets.UTF_8));
    }

    void write(byte[] bytes) {
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

  private static int ended(boolean printed, Sink err, String what) {
    if (!printed) {
      return NOT_SERVED;
    }
    err.write(
        "trainyard: error: the resident server "
            + what
            + "; run the command again (TRAINYARD_SERVER=off runs it without the server)\n");
    return Main.EXIT_INTERNAL;
  }
}
