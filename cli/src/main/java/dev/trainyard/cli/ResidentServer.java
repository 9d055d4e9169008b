package dev.trainyard.cli;

import dev.trainyard.gitops.PublishProgress;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.Charset;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A JVM that stays up between {@code trainyard} calls and runs the {@link ServerProtocol#SERVED
 * commands} a {@link ServerClient} hands it, each on its own thread, in the caller's working
 * directory and environment ({@link Invocation}). A warm JVM compiles a train.yaml in milliseconds;
 * a fresh one spends ~0.3 s loading and linking classes first (issue #24: a cold compile was 7-8×
 * {@code kubectl kustomize}'s time). The launcher scripts start one in the background when none
 * answers, as Gradle's daemon and Bazel's server are started.
 *
 * <p>Safety: the socket's folder must belong to this user and be closed to everyone else ({@code
 * rwx------}; created so when missing), so only the user's own processes can connect (Linux checks
 * the folder's search permission before connecting to a socket in it). One server per socket: a
 * lock file beside it ({@code SOCKET.lock}) is held for the server's life; a second server for the
 * same socket returns at once.
 *
 * <p>Lifetime: it stops after {@code idle} without a call, within a second of its socket file being
 * removed or replaced (so deleting the folder stops every server in it), or when a jar on its class
 * path changes (a rebuild or a new install: the launcher then names a new socket); calls already
 * running are finished first (at most a minute).
 */
final class ResidentServer {
  /** How often the server looks at its socket file and the idle time. */
  private static final long TICK_MILLIS = 500;

  /** How long calls still running may take once the server stops. */
  private static final Duration DRAIN = Duration.ofMinutes(1);

  static final String CALL_THREAD = "trainyard-call";

  private static final Set<PosixFilePermission> PRIVATE =
      PosixFilePermissions.fromString("rwx------");

  /** What runs one call: {@link Main#run(Invocation, PrintWriter, PrintWriter, String...)}. */
  @FunctionalInterface
  interface Runner {
    int run(Invocation invocation, PrintWriter out, PrintWriter err, String... args);
  }

  /** Why {@link #serve} returned. */
  enum Ended {
    /** No call for the idle time. */
    IDLE,
    /** The socket file was removed or replaced. */
    SOCKET_GONE,
    /** Another server holds the lock of this socket. */
    ALREADY_SERVING,
    /** A jar on the server's class path changed or went (a new build or install). */
    JARS_CHANGED
  }

  private final Path socket;
  private final Duration idle;
  private final Runner runner;
  private final PrintWriter log;
  private final LongSupplier clock;

  /** Removes the socket when the JVM exits while serving (set once bound). */
  private volatile Thread exitHook;

  private final AtomicInteger running = new AtomicInteger();
  private final AtomicLong lastCallEnded;
  private final Map<Path, Object> jars;

  /**
   * A server for {@code socket} (a path of at most ~100 bytes: the kernel's limit for a socket's
   * address is 108) that stops after {@code idle} without a call and writes one line per call and
   * per event to {@code log}.
   */
  ResidentServer(Path socket, Duration idle, Runner runner, PrintWriter log) {
    this(socket, idle, runner, log, System::nanoTime);
  }

  ResidentServer(Path socket, Duration idle, Runner runner, PrintWriter log, LongSupplier clock) {
    this(socket, idle, runner, log, clock, classPathJars());
  }

  /** As above, watching {@code jars} ({@link Ended#JARS_CHANGED}) instead of the class path's. */
  ResidentServer(
      Path socket,
      Duration idle,
      Runner runner,
      PrintWriter log,
      LongSupplier clock,
      List<Path> jars) {
    this.socket = socket.toAbsolutePath();
    this.idle = Objects.requireNonNull(idle);
    this.runner = runner;
    this.log = log;
    this.clock = clock;
    this.lastCallEnded = new AtomicLong(clock.getAsLong());
    this.jars = new LinkedHashMap<>();
    for (Path jar : jars) {
      this.jars.put(jar, stamp(jar));
    }
  }

  /** The jars on this JVM's class path, absolute. */
  static List<Path> classPathJars() {
    List<Path> jars = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
      if (entry.endsWith(".jar")) {
        jars.add(Path.of(entry).toAbsolutePath());
      }
    }
    return jars;
  }

  /** A jar's size and time, or null when it cannot be read. */
  private static Object stamp(Path jar) {
    try {
      BasicFileAttributes attributes = Files.readAttributes(jar, BasicFileAttributes.class);
      return attributes.size() + "@" + attributes.lastModifiedTime();
    } catch (IOException e) {
      return "unreadable";
    }
  }

  /**
   * Serves until idle or until the socket file goes.
   *
   * @return why it stopped
   * @throws IOException the socket's folder is not private to this user or cannot be made, or the
   *     socket cannot be bound (e.g. a path over the kernel's limit)
   */
  Ended serve() throws IOException {
    return serve(() -> {});
  }

  /**
   * Serves as {@link #serve()} does, running {@code warmup} first (once the lock is held, before
   * the socket is bound: calls made meanwhile run in their own JVM), so the first served call finds
   * the hot paths compiled.
   */
  Ended serve(Runnable warmup) throws IOException {
    Path folder = socket.getParent();
    privateFolder(folder);
    Path lockFile = folder.resolve(socket.getFileName() + ".lock");
    try (FileChannel lockChannel =
            FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = tryLock(lockChannel)) {
      if (lock == null) {
        log.println("trainyard server: another server holds " + lockFile + "; exiting");
        return Ended.ALREADY_SERVING;
      }
      warmup.run();
      Files.deleteIfExists(socket); // a server that was killed leaves its socket file
      ExecutorService calls = Executors.newCachedThreadPool(ResidentServer::callThread);
      try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
          Selector selector = Selector.open()) {
        server.bind(UnixDomainSocketAddress.of(socket));
        // Connecting needs write permission on the socket file: ours only, whatever the umask.
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        Object bound = fileKey(socket);
        // SIGTERM or SIGINT: the socket goes with the JVM (the launcher counts socket files
        // towards its 3 servers); a new server's socket at the same path stays.
        exitHook = new Thread(() -> dropOwn(bound), "trainyard-server-exit");
        Runtime.getRuntime().addShutdownHook(exitHook);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        log.println(
            "trainyard server: listening on " + socket + " (stops after " + idle + " idle)");
        Ended ended = null;
        while (ended == null) {
          selector.select(key -> {}, TICK_MILLIS); // accepted below; no selected-key set kept
          SocketChannel client;
          while ((client = server.accept()) != null) {
            running.incrementAndGet();
            SocketChannel accepted = client;
            calls.execute(() -> handle(accepted));
          }
          ended = ending(bound);
        }
        if (ended == Ended.IDLE || ended == Ended.JARS_CHANGED) {
          Files.deleteIfExists(socket);
        }
        try {
          Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException e) {
          // The JVM is exiting: the hook runs and finds the socket gone or another server's.
        }
        log.println("trainyard server: stopping (" + ended + ")");
        return ended;
      } finally {
        calls.shutdown();
        try {
          calls.awaitTermination(DRAIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Deletes the socket file if it is still the one bound as {@code bound}. */
  private void dropOwn(Object bound) {
    try {
      if (bound.equals(fileKey(socket))) {
        Files.deleteIfExists(socket);
      }
    } catch (IOException e) {
      // Gone already.
    }
  }

  /** The shutdown hook that removes the socket, while serving; for tests. */
  Optional<Thread> exitHook() {
    return Optional.ofNullable(exitHook);
  }

  /** The lock, or null when another server (in this JVM or another) holds it. */
  private static FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException e) {
      return null;
    }
  }

  /** Why to stop now, or null to go on. */
  private Ended ending(Object bound) {
    Object now;
    try {
      now = fileKey(socket);
    } catch (IOException e) {
      now = null;
    }
    if (!bound.equals(now)) {
      return Ended.SOCKET_GONE;
    }
    for (Map.Entry<Path, Object> jar : jars.entrySet()) {
      if (!jar.getValue().equals(stamp(jar.getKey()))) {
        return Ended.JARS_CHANGED;
      }
    }
    boolean quiet = clock.getAsLong() - lastCallEnded.get() >= idle.toNanos();
    return running.get() == 0 && quiet ? Ended.IDLE : null;
  }

  /**
   * Which file is at {@code file}: its device and inode with its modification time (an inode number
   * is reused as soon as a file is deleted).
   */
  private static Object fileKey(Path file) throws IOException {
    BasicFileAttributes a =
        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    return Arrays.asList(a.fileKey(), a.lastModifiedTime());
  }

  /**
   * Makes {@code folder} (mode {@code rwx------}) or checks that it is a real folder of this user
   * that no one else may enter.
   */
  static void privateFolder(Path folder) throws IOException {
    if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(folder.getParent());
      try {
        Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PRIVATE));
      } catch (FileAlreadyExistsException raced) {
        // another server made it first: checked below like any existing folder
      }
    }
    PosixFileAttributes attributes =
        Files.readAttributes(folder, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    String me = System.getProperty("user.name");
    if (!attributes.isDirectory()) {
      throw new IOException(folder + " is not a folder");
    }
    if (!attributes.owner().getName().equals(me)) {
      throw new IOException(
          folder + " belongs to " + attributes.owner().getName() + ", not to " + me);
    }
    if (!PRIVATE.containsAll(attributes.permissions())) {
      throw new IOException(
          folder
              + " is open to others ("
              + PosixFilePermissions.toString(attributes.permissions())
              + "): chmod 700 it, or remove it and let Trainyard make it");
    }
  }

  /** Calls run on threads named {@value #CALL_THREAD} (a thread dump tells them apart). */
  private static Thread callThread(Runnable call) {
    return new Thread(call, CALL_THREAD);
  }

  /**
   * Runs one call from {@code channel}; never throws. The call's log line is written before the
   * last frame, so a client that has its exit code finds its call in the log.
   */
  private void handle(SocketChannel channel) {
    long started = clock.getAsLong();
    String what = "?";
    Integer code = null;
    boolean declined = false;
    try {
      DataInputStream in =
          new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel)));
      DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel)));
      try {
        String peer = ServerProtocol.peerUser(channel);
        String me = System.getProperty("user.name");
        if (!me.equals(peer)) {
          // Only when the socket's folder was opened to others after the server started.
          what = "refused a call from " + (peer == null ? "an unknown user" : "user " + peer);
        } else {
          ServerProtocol.Request request = ServerProtocol.readRequest(in);
          Path workingDirectory = Path.of(request.workingDirectory());
          Optional<String> declinedFor = ServerProtocol.declined(request.args());
          if (declinedFor.isPresent() || !workingDirectory.isAbsolute()) {
            what = "declined " + declinedFor.orElse("a relative working folder");
            declined = true;
          } else if (!request
              .workingDirectoryKey()
              .equals(ServerProtocol.folderKey(request.workingDirectory()))) {
            what = "declined a working folder this server sees as another folder";
            declined = true;
          } else {
            what = request.args().get(0);
            boolean told = true;
            try {
              synchronized (out) {
                out.writeByte(ServerProtocol.ACCEPTED);
                out.flush();
              }
            } catch (IOException e) {
              told = false; // it gave up waiting and runs the call itself
            }
            if (!told || !toldToGo(channel, in)) {
              what += " not run: the client gave up before it went";
            } else {
              ServedStop stop = new ServedStop(() -> stopped(out));
              // Ends when the connection is closed below (interrupting it would close it now).
              watchForStop(channel, in, stop);
              code = run(request, workingDirectory, out, stop);
              awaitHandled(stop);
              what +=
                  " (exit "
                      + code
                      + (stop.requested() ? "; its client asked to stop or went away" : "")
                      + ")";
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        what += " failed: " + e;
      }
      log.println(
          "trainyard server: "
              + what
              + " in "
              + TimeUnit.NANOSECONDS.toMillis(clock.getAsLong() - started)
              + " ms");
      synchronized (out) {
        if (declined) {
          out.writeByte(ServerProtocol.DECLINED);
        } else if (code != null) {
          out.writeByte(ServerProtocol.EXIT);
          out.writeInt(code);
        }
        out.flush();
      }
    } catch (IOException e) {
      log.println("trainyard server: the client went away: " + e);
    } finally {
      lastCallEnded.set(clock.getAsLong());
      running.decrementAndGet();
      try {
        channel.close();
      } catch (IOException e) {
        // closed already
      }
    }
  }

  /**
   * Whether the client, told its call was accepted, answers go ({@link ServerProtocol#GO}) within
   * {@link ServerClient#ANSWER_TIMEOUT}; a client that gave up meanwhile closes the connection (or
   * is closed by the timer) and runs the call itself, so nothing is run here.
   */
  private static boolean toldToGo(SocketChannel channel, DataInputStream in) throws IOException {
    AtomicBoolean waiting = new AtomicBoolean(true);
    CompletableFuture.delayedExecutor(ServerClient.ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (waiting.getAndSet(false)) {
                close(channel);
              }
            });
    try {
      boolean go = in.readByte() == ServerProtocol.GO;
      return waiting.getAndSet(false) && go; // false: the timer closed the connection first
    } catch (IOException e) {
      return false; // closed by the client or by the timer
    } finally {
      waiting.set(false);
    }
  }

  /**
   * A daemon thread that reads what the client sends while its call runs: a {@linkplain
   * ServerProtocol#STOP stop}, or the end of the connection (the client was killed), makes {@code
   * stop} {@linkplain ServedStop#request() stop} the call. Reads the channel itself, not through a
   * stream, so the call's output frames are never held up by this read; bytes the request's buffer
   * already holds are read first.
   */
  private static void watchForStop(SocketChannel channel, DataInputStream in, ServedStop stop)
      throws IOException {
    int buffered = in.available();
    byte[] early = new byte[buffered];
    in.readFully(early);
    Thread watcher =
        new Thread(
            () -> {
              for (byte b : early) {
                if (b == ServerProtocol.STOP) {
                  stop.request();
                  return;
                }
              }
              ByteBuffer one = ByteBuffer.allocate(1);
              try {
                while (true) {
                  one.clear();
                  if (channel.read(one) < 0 || one.get(0) == ServerProtocol.STOP) {
                    stop.request();
                    return;
                  }
                }
              } catch (IOException e) {
                // The call ended and its connection was closed.
              }
            },
            CALL_THREAD + "-stop");
    watcher.setDaemon(true);
    watcher.start();
  }

  /** {@link ServedStop#awaitHandled}; an interrupt ends the wait and is kept for the caller. */
  private static void awaitHandled(ServedStop stop) {
    try {
      stop.awaitHandled();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Tells the client its stop was handled ({@link ServerProtocol#STOPPED}); it may end now. */
  private static void stopped(DataOutputStream out) {
    try {
      synchronized (out) {
        out.writeByte(ServerProtocol.STOPPED);
        out.flush();
      }
    } catch (IOException e) {
      // The client is gone already.
    }
  }

  private static void close(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // closed already
    }
  }

  /**
   * What stops one served call: its client's {@linkplain ServerProtocol#STOP stop} frame, or its
   * client's end. A publish the call has registered ({@link #watch}) is {@linkplain
   * PublishProgress#stop() stopped} before its push, and the line {@link InterruptReport} prints in
   * a process of its own goes to the client's standard error; then the client is told it may end. A
   * call that publishes nothing runs on to its end (its output is no longer read).
   */
  static final class ServedStop implements CallStop {
    private final Runnable stopped;
    private final CountDownLatch handled = new CountDownLatch(1);
    private PublishProgress progress;
    private PrintWriter err;
    private boolean requested;

    ServedStop(Runnable stopped) {
      this.stopped = stopped;
    }

    @Override
    public synchronized Watch watch(PublishProgress progress, PrintWriter err) {
      if (requested) {
        progress.stop();
      }
      this.progress = progress;
      this.err = err;
      return () -> {
        synchronized (this) {
          this.progress = null;
        }
      };
    }

    /** Whether the client asked for a stop. */
    synchronized boolean requested() {
      return requested;
    }

    /**
     * Stops the call's publish, if one is registered, waits up to {@link
     * InterruptReport#PUSH_GRACE} for a push in flight and prints the line; then tells the client
     * (once).
     */
    void request() {
      PublishProgress publish;
      PrintWriter to;
      synchronized (this) {
        if (requested) {
          return;
        }
        requested = true;
        publish = progress;
        to = err;
        if (publish != null) {
          publish.stop();
        }
      }
      try {
        if (publish != null) {
          InterruptReport.report(publish, to, InterruptReport.PUSH_GRACE);
        }
        stopped.run();
      } finally {
        handled.countDown();
      }
    }

    /**
     * Once the call has returned: when a stop was requested, waits until its handling has printed
     * its line and told the client (at most {@link InterruptReport#PUSH_GRACE} and a second more),
     * so that the call's exit comes after them. Without this, a call that saw the stop and returned
     * could send its exit and close the connection between the stop and its line (a flaky {@code
     * ResidentServerTest.stopAfterRegistered} at load 13: the client got "x5" alone).
     */
    void awaitHandled() throws InterruptedException {
      if (requested()) {
        handled.await(InterruptReport.PUSH_GRACE.toMillis() + 1_000, TimeUnit.MILLISECONDS);
      }
    }
  }

  /** Runs {@code request}'s command with its output as frames on {@code out}; its exit code. */
  private int run(
      ServerProtocol.Request request, Path workingDirectory, DataOutputStream out, CallStop stop) {
    Charset charset = Charset.defaultCharset();
    PrintWriter stdout =
        new PrintWriter(new OutputStreamWriter(new Frames(out, ServerProtocol.OUT), charset), true);
    PrintWriter stderr =
        new PrintWriter(new OutputStreamWriter(new Frames(out, ServerProtocol.ERR), charset), true);
    int code =
        runner.run(
            new Invocation(workingDirectory, request.environment(), stop),
            stdout,
            stderr,
            request.args().toArray(String[]::new));
    stdout.flush();
    stderr.flush();
    return code;
  }

  /**
   * Standard output or error of one call as frames on the call's connection; both streams of a call
   * share {@code out}, so each frame is written whole under its lock. A client gone away makes
   * writes fail; the command's {@link PrintWriter} then only records the error.
   */
  static final class Frames extends OutputStream {
    /**
     * Frames of at most 64 KiB, well under the protocol's limit ({@link PrintWriter} hands over at
     * most its encoder's 8 KiB at a time; a direct write may be longer).
     */
    static final int CHUNK = 64 * 1024;

    private final DataOutputStream out;
    private final byte kind;

    Frames(DataOutputStream out, byte kind) {
      this.out = out;
      this.kind = kind;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      synchronized (out) {
        for (int at = offset; at < offset + length; at += CHUNK) {
          int n = Math.min(CHUNK, offset + length - at);
          out.writeByte(kind);
          out.writeInt(n);
          out.write(bytes, at, n);
        }
        out.flush();
      }
    }
  }
}
