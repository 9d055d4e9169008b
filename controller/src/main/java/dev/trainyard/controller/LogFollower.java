package dev.trainyard.controller;

import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.Resumed;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.TrainingSigns;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Follows rank 0's container log of each RUNNING run (the MPI launcher's, else node 0's: the pod of
 * the current attempt that runs ranks with the lowest name) and keeps its last {@link Progress}
 * ({@link FollowedLog}); enqueues the run's key when that progress changed enough ({@link
 * FollowedLog#meaningful}). Following starts when the reconciler sees the run RUNNING with that pod
 * in phase Running ({@link #track}), from the last {@link Settings#tailLines} lines (a controller
 * restarted mid-run does not read a week of log), and stops when the run leaves RUNNING, its rank 0
 * pod changes (a restart) or it is gone; the last progress is kept until the run is forgotten. A
 * stream the server ended (the log not served yet, a dropped connection) is opened again at the
 * run's next reconcile {@link #REOPEN} after it was opened, from the tail again. Before each open,
 * while the attempt's resume line was not seen, the log's first {@link #HEAD_BYTES} bytes are read
 * for it ({@link FollowedLog#head}): it comes before setup's output. Reading is bounded: {@link
 * Settings#bytesPerSecond} per run and {@link Settings#totalBytesPerSecond} for all runs (more is
 * dropped, counted in {@link #dropped}), and at most {@link Settings#maxRuns} runs at once. Streams
 * are opened on one thread of their own, so the reconciler never waits for the API server;
 * fabric8's HTTP client delivers the bytes.
 *
 * <pre>
 * reconcile: RUNNING → track → open pods/NS/P/log?container=C&amp;follow=true&amp;tailLines=100 → FollowedLog
 * </pre>
 */
public final class LogFollower implements RunProgress, AutoCloseable {

  /**
   * Limits: bytes a second per run and in total, runs followed at once, lines read back when a
   * follow starts.
   */
  public record Settings(
      long bytesPerSecond, long totalBytesPerSecond, int maxRuns, int tailLines) {

    /** 16 KiB/s per run, 4 MiB/s in all, 2,000 runs, the last 100 lines. */
    public static final Settings DEFAULT = new Settings(16 * 1024, 4 * 1024 * 1024, 2_000, 100);
  }

  /** Opens a followed log stream of one container into a sink. */
  interface Streams {
    Stream open(String namespace, String pod, String container, int tailLines, OutputStream to);

    /**
     * The first {@code bytes} bytes of the container's log (Kubernetes PodLogOptions {@code
     * limitBytes} without {@code tailLines} reads from the start); "" when none.
     */
    default String head(String namespace, String pod, String container, int bytes) {
      return "";
    }
  }

  /**
   * Bytes read from the start of rank 0's log when a follow starts: the checkpoint script's resume
   * line comes before setup's and the program's output ({@link FollowedLog#head}).
   */
  static final int HEAD_BYTES = 8 * 1024;

  /** One open stream: closing it ends it; {@link #ended} once the API server ended it. */
  interface Stream extends AutoCloseable {
    boolean ended();

    @Override
    void close();
  }

  /**
   * How long after a follow was opened a stream that ended (the log was not served yet, the
   * connection dropped) is opened again, at the next reconcile of its run.
   */
  static final Duration REOPEN = Duration.ofSeconds(10);

  /** A stream that never opened: ended, nothing to close. */
  private static final Stream FAILED =
      new Stream() {
        @Override
        public boolean ended() {
          return true;
        }

        @Override
        public void close() {}
      };

  /** One followed log; {@code stream} and {@code opened} are guarded by the follower. */
  private static final class Followed {
    final String pod;
    final String container;
    final FollowedLog log;
    Stream stream;
    Instant opened;

    Followed(String pod, String container, FollowedLog log) {
      this.pod = pod;
      this.container = container;
      this.log = log;
    }

    String pod() {
      return pod;
    }

    String container() {
      return container;
    }

    FollowedLog log() {
      return log;
    }
  }

  private static final System.Logger LOG = System.getLogger(LogFollower.class.getName());
  private final Streams streams;
  private final Settings settings;
  private final Clock clock;
  private final Duration stallAfter;
  private final Consumer<RunKey> enqueue;
  private final ByteBudget total;
  private final Map<RunKey, Followed> followed = new HashMap<>();
  private final Map<RunKey, Progress> last = new HashMap<>();
  private final Map<RunKey, TrainingSigns> lastSigns = new HashMap<>();
  private final AtomicLong dropped = new AtomicLong();
  private final ExecutorService opener;
  private boolean full;

  /** Follows through {@code client}. */
  public LogFollower(
      KubernetesClient client,
      Settings settings,
      Clock clock,
      Duration stallAfter,
      Consumer<RunKey> enqueue) {
    this(fabric8(client), settings, clock, stallAfter, enqueue);
  }

  LogFollower(
      Streams streams,
      Settings settings,
      Clock clock,
      Duration stallAfter,
      Consumer<RunKey> enqueue) {
    this.streams = streams;
    this.settings = settings;
    this.clock = clock;
    this.stallAfter = stallAfter;
    this.enqueue = enqueue;
    this.total = new ByteBudget(settings.totalBytesPerSecond(), clock);
    this.opener =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "trainyard-log-follow");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public synchronized Optional<Progress> progress(RunKey key) {
    Followed f = followed.get(key);
    Optional<Progress> now = f == null ? Optional.empty() : f.log().progress();
    return now.or(() -> Optional.ofNullable(last.get(key)));
  }

  /**
   * Where the current attempt resumed from, as its rank 0 log said while followed; empty when not
   * followed (an older attempt's line does not speak for this one).
   */
  @Override
  public synchronized Optional<Resumed> resumed(RunKey key) {
    Followed f = followed.get(key);
    return f == null ? Optional.empty() : f.log().resumed();
  }

  /** What the followed log showed; kept after the follow stops, until the run is forgotten. */
  @Override
  public synchronized TrainingSigns signs(RunKey key) {
    Followed f = followed.get(key);
    return f == null ? lastSigns.getOrDefault(key, TrainingSigns.NONE) : f.log().signs();
  }

  @Override
  public synchronized void track(RunKey key, RunObservation o, Phase phase) {
    Optional<PodSnapshot> rank0 = phase == Phase.RUNNING ? rankZero(o) : Optional.empty();
    Followed f = followed.get(key);
    if (f != null
        && rank0.isPresent()
        && f.pod().equals(rank0.get().name())
        && f.container().equals(rank0.get().containers().get(0).name())) {
      if (f.stream != null
          && f.stream.ended()
          && !clock.instant().isBefore(f.opened.plus(REOPEN))) {
        // Ended by the server (not served yet, a dropped connection): again, from the tail.
        Stream ended = f.stream;
        opener.execute(ended::close);
        f.stream = null;
        f.opened = clock.instant();
        opener.execute(() -> open(key, f));
      }
      return;
    }
    if (f != null) {
      stop(key);
    }
    if (rank0.isEmpty() || !"Running".equals(rank0.get().phase())) {
      return;
    }
    if (followed.size() >= settings.maxRuns()) {
      if (!full) {
        full = true;
        LOG.log(
            System.Logger.Level.WARNING,
            "following {0} run logs already (the most); run {1} and later ones show no progress",
            settings.maxRuns(),
            key.cacheKey());
      }
      return;
    }
    start(key, rank0.get());
  }

  @Override
  public synchronized void forget(RunKey key) {
    stop(key);
    last.remove(key);
    lastSigns.remove(key);
  }

  /** Runs followed now. */
  public synchronized int following() {
    return followed.size();
  }

  /** Whether {@code key}'s stream is being opened (for tests: opening is asynchronous). */
  synchronized boolean opening(RunKey key) {
    Followed f = followed.get(key);
    return f != null && f.stream == null;
  }

  /** Whether {@code key}'s stream was opened and has ended (for tests). */
  synchronized boolean ended(RunKey key) {
    Followed f = followed.get(key);
    return f != null && f.stream != null && f.stream.ended();
  }

  /**
   * Bytes read from followed logs within the budgets since the start (dropped bytes not counted).
   */
  public long read() {
    return total.spent();
  }

  /** Bytes dropped over budget since the start. */
  public long dropped() {
    return dropped.get();
  }

  private void start(RunKey key, PodSnapshot pod) {
    String container = pod.containers().get(0).name();
    FollowedLog log =
        new FollowedLog(
            new ByteBudget(settings.bytesPerSecond(), clock),
            total,
            clock,
            stallAfter,
            () -> enqueue.accept(key),
            dropped::addAndGet);
    Followed f = new Followed(pod.name(), container, log);
    f.opened = clock.instant();
    followed.put(key, f);
    opener.execute(() -> open(key, f));
  }

  /** Opens {@code f}'s stream unless it was stopped meanwhile; closes it if stopped since. */
  private void open(RunKey key, Followed f) {
    synchronized (this) {
      if (followed.get(key) != f) {
        return;
      }
    }
    readHead(key, f);
    Stream s;
    try {
      s = streams.open(key.namespace(), f.pod(), f.container(), settings.tailLines(), f.log());
    } catch (KubernetesClientException e) {
      LOG.log(
          System.Logger.Level.DEBUG,
          "run {0}: cannot follow {1}: {2}",
          key.cacheKey(),
          f.pod(),
          e.getMessage());
      s = FAILED;
    }
    boolean stopped;
    synchronized (this) {
      stopped = followed.get(key) != f;
      f.stream = s;
    }
    if (stopped) {
      s.close();
    }
  }

  /**
   * Reads the head of {@code f}'s log for the resume line while none is known: at each (re)open,
   * since a log not served yet has no head either.
   */
  private void readHead(RunKey key, Followed f) {
    if (f.log().resumed().isPresent()) {
      return;
    }
    try {
      f.log().head(streams.head(key.namespace(), f.pod(), f.container(), HEAD_BYTES));
    } catch (KubernetesClientException e) {
      LOG.log(
          System.Logger.Level.DEBUG,
          "run {0}: cannot read the head of {1}: {2}",
          key.cacheKey(),
          f.pod(),
          e.getMessage());
    }
  }

  private void stop(RunKey key) {
    Followed f = followed.remove(key);
    if (f == null) {
      return;
    }
    f.log().progress().ifPresent(p -> last.put(key, p));
    TrainingSigns signs = f.log().signs();
    if (signs.logRead()) {
      lastSigns.put(key, signs);
    }
    if (f.stream != null) {
      Stream s = f.stream;
      // Closing an HTTP stream may wait on the connection: never on the reconciler's thread.
      if (opener.isShutdown()) {
        s.close();
      } else {
        opener.execute(s::close);
      }
    }
  }

  /**
   * Rank 0's pod of the current attempt: the MPI launcher (it prints what rank 0 prints), else the
   * node with the lowest name; empty when it has no container yet.
   */
  static Optional<PodSnapshot> rankZero(RunObservation o) {
    return o.pods().stream()
        .filter(p -> p.attempt() == o.jobSet().restarts() && !p.deleting())
        .filter(p -> !p.containers().isEmpty())
        .min(
            Comparator.comparing(PodSnapshot::runsRanks)
                .thenComparing(PodSnapshot::name, RunLogs::byIndex));
  }

  /**
   * Streams through {@code client}'s HTTP client: {@code GET
   * /api/v1/namespaces/NS/pods/P/log?container=C&follow=true&tailLines=N}, the bytes of a 2xx
   * answer only. fabric8's {@code watchLog} writes the body of any answer into its sink, so the API
   * server's 400 for a log it cannot serve ({"kind":"Status",…,"message":"no logs found for
   * container…"} from kwok, "container … is waiting to start", a pod without a node) would read as
   * a line rank 0 printed: the run would look read, and a success that printed nothing ask "did it
   * train?" (found on the IT harness, whose kwok answers 400 for a pod without a Logs object).
   */
  private static Streams fabric8(KubernetesClient client) {
    HttpClient http = client.getHttpClient();
    String root = client.getMasterUrl().toString().replaceAll("/+$", "");
    return new Streams() {
      @Override
      public Stream open(
          String namespace, String pod, String container, int tail, OutputStream to) {
        return follow(http, root, namespace, pod, container, tail, to);
      }

      @Override
      public String head(String namespace, String pod, String container, int bytes) {
        String log =
            client
                .pods()
                .inNamespace(namespace)
                .withName(pod)
                .inContainer(container)
                .limitBytes(bytes)
                .getLog();
        return log == null ? "" : log;
      }
    };
  }

  /** Follows one container's log through {@code http}, the bytes of a 2xx answer only. */
  private static Stream follow(
      HttpClient http,
      String root,
      String namespace,
      String pod,
      String container,
      int tail,
      OutputStream to) {
    {
      URI uri =
          URI.create(
              root
                  + "/api/v1/namespaces/"
                  + namespace
                  + "/pods/"
                  + pod
                  + "/log?container="
                  + URLEncoder.encode(container, StandardCharsets.UTF_8)
                  + "&follow=true&tailLines="
                  + tail);
      AtomicBoolean ended = new AtomicBoolean();
      AtomicReference<AsyncBody> body = new AtomicReference<>();
      CompletableFuture<HttpResponse<AsyncBody>> answer =
          http.consumeBytes(
              http.newHttpRequestBuilder().uri(uri).build(),
              (buffers, b) -> {
                for (ByteBuffer buffer : buffers) {
                  byte[] bytes = new byte[buffer.remaining()];
                  buffer.get(bytes);
                  to.write(bytes, 0, bytes.length);
                }
                b.consume();
              });
      answer.whenComplete(
          (r, e) -> {
            if (e != null || !r.isSuccessful()) {
              // Not served: nothing of the answer reaches the sink.
              if (r != null) {
                r.body().cancel();
              }
              ended.set(true);
              return;
            }
            body.set(r.body());
            r.body().done().whenComplete((v, t) -> ended.set(true));
            r.body().consume();
          });
      return new Stream() {
        @Override
        public boolean ended() {
          return ended.get();
        }

        @Override
        public void close() {
          answer.cancel(true);
          AsyncBody b = body.get();
          if (b != null) {
            b.cancel();
          }
        }
      };
    }
  }

  @Override
  public synchronized void close() {
    opener.shutdownNow();
    List.copyOf(followed.keySet()).forEach(this::stop);
  }
}
