package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Free TCP ports on 127.0.0.1. Every server the harness starts binds to loopback only, on ports
 * chosen here so that two clusters (the shared one and a private one) can run side by side.
 */
final class LoopbackPorts {

  static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  private LoopbackPorts() {}

  /**
   * A port that was free a moment ago; the small race with other processes is acceptable in tests.
   */
  static int free() {
    try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  /** Whether something accepts connections on 127.0.0.1:{@code port}. */
  static boolean listening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(LOOPBACK, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
