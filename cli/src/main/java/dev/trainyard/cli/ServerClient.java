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
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

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
    if (args.length < 1) {
      System.err.println("usage: ServerClient SOCKET ARGS...");
      System.exit(NOT_SERVED);
    }
    OutputStream out = new FileOutputStream(FileDescriptor.out);
    OutputStream err = new FileOutputStream(FileDescriptor.err);
    int code =
        call(
            Path.of(args[0]),
            new ServerProtocol.Request(
                Path.of("").toAbsolutePath().toString(),
                System.getenv(),
                Arrays.asList(args).subList(1, args.length)),
            out,
            err);
    System.exit(code);
  }

  /**
   * Runs {@code request} on the server at {@code socket}, copying its output to {@code out} and
   * {@code err} as it arrives; returns the command's exit code, or {@link #NOT_SERVED} (nothing was
   * run, or nothing printed before the server ended).
   */
  static int call(Path socket, ServerProtocol.Request request, OutputStream out, OutputStream err) {
    SocketChannel channel;
    try {
      channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    } catch (IOException | UnsupportedOperationException e) {
      return NOT_SERVED; // no Unix domain sockets here
    }
    boolean printed = false;
    try (channel) {
      try {
        channel.connect(UnixDomainSocketAddress.of(socket));
      } catch (IOException | RuntimeException e) {
        return NOT_SERVED; // no server, a stale socket file, or a path too long for a socket
      }
      DataOutputStream to =
          new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel)));
      ServerProtocol.writeRequest(to, request);
      DataInputStream from =
          new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel)));
      while (true) {
        byte kind = from.readByte();
        switch (kind) {
          case ServerProtocol.OUT, ServerProtocol.ERR -> {
            OutputStream target = kind == ServerProtocol.OUT ? out : err;
            target.write(ServerProtocol.readBytes(from));
            target.flush();
            printed = true;
          }
          case ServerProtocol.EXIT -> {
            return from.readInt();
          }
          case ServerProtocol.DECLINED -> {
            return NOT_SERVED;
          }
          default -> throw new IOException("unknown frame " + kind);
        }
      }
    } catch (EOFException e) {
      return ended(printed, err, "ended before the command finished");
    } catch (IOException e) {
      return ended(printed, err, "failed: " + e.getMessage());
    }
  }

  private static int ended(boolean printed, OutputStream err, String what) {
    if (!printed) {
      return NOT_SERVED;
    }
    try {
      err.write(
          ("trainyard: error: the resident server "
                  + what
                  + "; run the command again (TRAINYARD_SERVER=off runs it without the server)\n")
              .getBytes(StandardCharsets.UTF_8));
      err.flush();
    } catch (IOException ignored) {
      // nothing left to tell it on
    }
    return Main.EXIT_INTERNAL;
  }
}
