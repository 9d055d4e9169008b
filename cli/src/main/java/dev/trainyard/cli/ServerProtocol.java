package dev.trainyard.cli;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import jdk.net.ExtendedSocketOptions;

/**
 * The bytes {@link ServerClient} and {@link ResidentServer} exchange over the resident server's
 * Unix domain socket: one request, then frames until the exit code. Only JDK classes, so the client
 * JVM loads nothing else.
 *
 * <pre>
 * request:  int MAGIC, text working-directory, text its folder key, int n, n × (text name, text value),
 *           int m, m × text argument
 * response: 'a'                              — accepted: the server will run the command once told to go
 *           ('o' | 'e') int length, bytes   — standard output / error, in the order written
 *           'k'                              — stopped: the answer to a stop; the client may end now
 *           'x' int exit-code                — the command ended (the last frame)
 *           'd'                              — declined: not a served command; nothing was run
 * client, after 'a':
 *           'g'                              — go: run it (sent at most once; the server runs nothing without it)
 *           's'                              — stop: the client was told to stop (Ctrl-C, SIGTERM, SIGHUP)
 * text:     int length, UTF-8 bytes
 * </pre>
 *
 * <p>Each call runs at most once: the client either sends go, and from then on never runs the call
 * itself but for a {@linkplain #RERUNNABLE rerunnable} command that printed nothing, or it gives up
 * before (no answer in time) and runs it in its own JVM, and the server, never told to go, runs
 * nothing. A {@code submit} is not rerunnable: its push may have landed.
 */
final class ServerProtocol {
  /**
   * "TYS2": the first int of a request; another value is not a Trainyard client of this version
   * (TYS1 had no go and stop frames).
   */
  static final int MAGIC = 0x54595332;

  static final byte ACCEPTED = 'a';
  static final byte OUT = 'o';
  static final byte ERR = 'e';
  static final byte EXIT = 'x';
  static final byte DECLINED = 'd';
  static final byte STOPPED = 'k';
  static final byte GO = 'g';
  static final byte STOP = 's';

  /**
   * The commands that can be run again from the start when a server ended before printing anything
   * (the client then runs the call in its own JVM): they read files, git and the environment, write
   * files and print, and change nothing elsewhere.
   */
  static final Set<String> RERUNNABLE = Set.of("compile", "validate", "preview", "check-secrets");

  /**
   * The commands the server runs: the {@linkplain #RERUNNABLE rerunnable} ones and {@code submit}
   * (it pushes, so once told to go it is never run again by the client; a stop frame stops it
   * before its push). None reads standard input or a terminal.
   */
  static final Set<String> SERVED =
      Set.of("compile", "validate", "preview", "check-secrets", "submit");

  /** At most this many bytes in one text (a path, a variable, an argument): 1 MiB. */
  static final int MAX_TEXT = 1 << 20;

  /** At most this many environment variables or arguments in one request. */
  static final int MAX_ITEMS = 100_000;

  private ServerProtocol() {}

  /**
   * The user at the other end of a connected Unix domain socket (the kernel's {@code SO_PEERCRED}),
   * or null when the platform does not tell.
   */
  static String peerUser(SocketChannel channel) {
    try {
      return channel.getOption(ExtendedSocketOptions.SO_PEERCRED).user().getName();
    } catch (IOException | UnsupportedOperationException e) {
      return null;
    }
  }

  /**
   * Why the server does not run {@code args} (empty when it does): not a {@linkplain #SERVED
   * served} command; {@code validate --cluster} (its kubeconfig and {@code $KUBECONFIG} are read in
   * the JVM's folder, and it waits on the network anyway); or an argument naming {@code /dev/...}
   * or {@code /proc/...}, which would open the server's own standard input, file descriptors or
   * process instead of the caller's ({@code /dev/stdin}, {@code <(...)}).
   */
  static Optional<String> declined(List<String> args) {
    String command = args.isEmpty() ? "" : args.get(0);
    if (!SERVED.contains(command)) {
      return Optional.of(command.isEmpty() ? "(no command)" : command);
    }
    for (String arg : args) {
      if (command.equals("validate") && (arg.equals("--cluster") || arg.startsWith("--cluster="))) {
        return Optional.of("validate --cluster");
      }
      for (String own : OWN_PROCESS) {
        if (arg.startsWith(own) || arg.contains("=" + own)) {
          return Optional.of(command + " with " + own + "...");
        }
      }
    }
    return Optional.empty();
  }

  /** Paths that name the process opening them, not the caller. */
  private static final List<String> OWN_PROCESS = List.of("/dev/", "/proc/");

  /**
   * One call: where it runs, its environment and its arguments.
   *
   * @param workingDirectoryKey which folder the working directory is for the caller ({@link
   *     #folderKey}): the server runs the call only when it sees the same folder there (a caller in
   *     another mount namespace, e.g. {@code unshare -m} or a container sharing the socket folder,
   *     may see other files at the same path)
   */
  record Request(
      String workingDirectory,
      String workingDirectoryKey,
      Map<String, String> environment,
      List<String> args) {
    /** A request from this process: the working directory's key as this process sees it. */
    Request(String workingDirectory, Map<String, String> environment, List<String> args) {
      this(workingDirectory, folderKey(workingDirectory), environment, args);
    }
  }

  /**
   * The identity of the folder at {@code path} as this process sees it: its device and inode
   * ({@link BasicFileAttributes#fileKey()}, "" when it cannot be read), after this process's mount
   * namespace and root ({@code /proc/self/ns/mnt}, {@code /proc/self/root}; "" where there are
   * none), so a caller that sees other files anywhere (another mount namespace, a chroot) gets
   * another key, not only one whose working folder itself differs.
   */
  static String folderKey(String path) {
    String where = link("/proc/self/ns/mnt") + " " + link("/proc/self/root") + " ";
    try {
      Object key = Files.readAttributes(Path.of(path), BasicFileAttributes.class).fileKey();
      return where + (key == null ? "" : key.toString());
    } catch (IOException | RuntimeException e) {
      return where;
    }
  }

  private static String link(String path) {
    try {
      return Files.readSymbolicLink(Path.of(path)).toString();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  static void writeRequest(DataOutputStream out, Request request) throws IOException {
    out.writeInt(MAGIC);
    writeText(out, request.workingDirectory());
    writeText(out, request.workingDirectoryKey());
    Map<String, String> sorted = new TreeMap<>(request.environment());
    out.writeInt(sorted.size());
    for (Map.Entry<String, String> variable : sorted.entrySet()) {
      writeText(out, variable.getKey());
      writeText(out, variable.getValue());
    }
    out.writeInt(request.args().size());
    for (String arg : request.args()) {
      writeText(out, arg);
    }
    out.flush();
  }

  /**
   * Reads one request.
   *
   * @throws IOException when the stream ends early, does not start with {@link #MAGIC}, or holds
   *     more than {@link #MAX_ITEMS} items or a text over {@link #MAX_TEXT} bytes
   */
  static Request readRequest(DataInputStream in) throws IOException {
    if (in.readInt() != MAGIC) {
      throw new IOException("not a Trainyard client request");
    }
    String workingDirectory = readText(in);
    String workingDirectoryKey = readText(in);
    int variables = count(in);
    Map<String, String> environment = new TreeMap<>();
    for (int i = 0; i < variables; i++) {
      environment.put(readText(in), readText(in));
    }
    int n = count(in);
    List<String> args = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      args.add(readText(in));
    }
    return new Request(workingDirectory, workingDirectoryKey, environment, args);
  }

  private static int count(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > MAX_ITEMS) {
      throw new IOException("a request with " + n + " items");
    }
    return n;
  }

  static void writeText(DataOutputStream out, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  static String readText(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > MAX_TEXT) {
      throw new IOException("a text of " + length + " bytes");
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Reads a frame's length-prefixed bytes; {@link EOFException} when the stream ends inside. */
  static byte[] readBytes(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > MAX_TEXT) {
      throw new IOException("a frame of " + length + " bytes");
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }
}
