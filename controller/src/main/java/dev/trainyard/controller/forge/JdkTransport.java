package dev.trainyard.controller.forge;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * {@link Transport} on the JDK's {@code java.net.http.HttpClient} (the only class that imports it):
 * HTTP/1.1, a connect timeout and a per-request timeout, so a stalled forge turns into an
 * IOException ({@code SocketTimeoutException}) instead of a hung reconciler.
 */
public final class JdkTransport implements Transport {

  private final HttpClient client;
  private final Duration requestTimeout;

  /**
   * @param requestTimeout the longest one request may take, connect included
   */
  public JdkTransport(Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(requestTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public HttpAnswer send(HttpCall call) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(call.uri()).timeout(requestTimeout);
    call.headers().forEach(b::header);
    if ("GET".equals(call.method())) {
      b.GET();
    } else {
      b.method(
          call.method(), HttpRequest.BodyPublishers.ofString(call.body(), StandardCharsets.UTF_8));
    }
    HttpResponse<String> r;
    try {
      r = client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpTimeoutException e) {
      // The JDK client's own type stays in this class: callers see the JDK's neutral timeout.
      SocketTimeoutException timeout = new SocketTimeoutException(e.getMessage());
      timeout.initCause(e);
      throw timeout;
    }
    return new HttpAnswer(r.statusCode(), r.headers().map(), r.body());
  }
}
