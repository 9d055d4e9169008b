package dev.trainyard.cluster.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Lets processes in the harness's network namespaces reach the test cluster's API server, which
 * listens on this machine's 127.0.0.1 only: this JVM accepts on a Unix socket (a path in the file
 * system, reachable from every network namespace) and copies bytes to and from {@code
 * 127.0.0.1:<port>}; inside a host, a small Python relay ({@link #NAMESPACE_SIDE}) listens on the
 * namespace's own {@code 127.0.0.1:<port>} and copies to the socket. TLS is end to end between the
 * pod's client and the API server (whose certificate names 127.0.0.1). No traffic leaves the
 * loopback or the socket.
 */
final class ApiServerRelay implements AutoCloseable {
  /**
   * The relay inside a namespace: {@code python3 - <port> <socket>}, one thread pair per
   * connection.
   */
  static final String NAMESPACE_SIDE =
      String.join(
          "\n",
          "import socket, sys, threading",
          "port, path = int(sys.argv[1]), sys.argv[2]",
          "def pump(a, b):",
          "    try:",
          "        while (data := a.recv(65536)):",
          "            b.sendall(data)",
          "    except OSError:",
          "        pass",
          "    finally:",
          "        for s in (a, b):",
          "            try: s.shutdown(socket.SHUT_RDWR)",
          "            except OSError: pass",
          "server = socket.create_server(('127.0.0.1', port))",
          "while True:",
          "    client, _ = server.accept()",
          "    upstream = socket.socket(socket.AF_UNIX)",
          "    upstream.connect(path)",
          "    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()",
          "    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()",
          "");

  private final ServerSocketChannel server;
  private final Path socket;
  private final int port;
  private final Thread acceptor;

  /** Starts accepting on {@code socket}, relaying to 127.0.0.1:{@code port}. */
  ApiServerRelay(Path socket, int port) {
    this.socket = socket;
    this.port = port;
    try {
      Files.createDirectories(socket.getParent());
      Files.deleteIfExists(socket);
      server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      server.bind(UnixDomainSocketAddress.of(socket));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    acceptor = new Thread(this::accept, "api-relay");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  Path socket() {
    return socket;
  }

  int port() {
    return port;
  }

  private void accept() {
    while (server.isOpen()) {
      try {
        SocketChannel pod = server.accept();
        SocketChannel api = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        pump(pod, api);
        pump(api, pod);
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void pump(ByteChannel from, ByteChannel to) {
    Thread t =
        new Thread(
            () -> {
              ByteBuffer buffer = ByteBuffer.allocate(65536);
              try (from;
                  to) {
                while (from.read(buffer) >= 0) {
                  buffer.flip();
                  while (buffer.hasRemaining()) {
                    to.write(buffer);
                  }
                  buffer.clear();
                }
              } catch (IOException e) {
                // The other side closed; both channels close with this thread.
              }
            },
            "api-relay-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() {
    try {
      server.close();
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
