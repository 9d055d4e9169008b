package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Gitea and Forgejo commit statuses (docs.gitea.com api-usage; Forgejo CommitStatusState): {@code POST
 * /api/v1/repos/{owner}/{repo}/statuses/{sha}} with {@code Authorization: token}, body {@code context,
 * description, state, target_url}, states pending|success|error|failure|warning (no running: RUNNING is
 * sent as pending). Each post adds a row; the newest per context counts. Read: {@code GET
 * /api/v1/repos/{owner}/{repo}/commits/{ref}/status}, whose statuses carry the state in field
 * {@code status}. 502s happen (kimdre/doco-cd#1568): the transport retries them.
 */
public final class GiteaForge implements Forge {

    static final int DESCRIPTION = 255;
    private final URI api;
    private final Token token;
    private final RetryingTransport http;

    /** @param api the API root including /api/v1, e.g. https://codeberg.org/api/v1 */
    public GiteaForge(URI api, Token token, RetryingTransport http) {
        this.api = api;
        this.token = token;
        this.http = http;
    }

    @Override
    public String kind() {
        return "gitea";
    }

    @Override
    public String wireState(CommitState state) {
        return switch (state) {
            case PENDING, RUNNING -> "pending";
            case SUCCESS -> "success";
            case FAILURE -> "failure";
            case ERROR -> "error";
        };
    }

    @Override
    public Optional<PostedStatus> current(CommitRef commit, String context) throws ForgeException {
        URI uri = ApiPath.of(api, "/repos" + ApiPath.ownerRepo(commit.project()), Map.of(), "commits",
                commit.sha(), "status");
        HttpAnswer a = http.send(kind(), new HttpCall("GET", uri, headers(), ""));
        return Json.objects(Json.object(Json.read(a.body())).get("statuses")).stream()
                .filter(s -> context.equals(Json.string(s, "context"))).findFirst()
                .map(s -> new PostedStatus(s.containsKey("status") ? Json.string(s, "status") : Json.string(s, "state"),
                        Json.string(s, "description"), Json.string(s, "target_url")));
    }

    @Override
    public PostOutcome post(CommitRef commit, CommitStatus status) throws ForgeException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("state", wireState(status.state()));
        body.put("context", Limits.context(status));
        body.put("description", Limits.description(status, DESCRIPTION));
        body.put("target_url", status.targetUrl());
        URI uri = ApiPath.of(api, "/repos" + ApiPath.ownerRepo(commit.project()), Map.of(), "statuses",
                commit.sha());
        http.send(kind(), new HttpCall("POST", uri, headers(), Json.write(body)));
        return PostOutcome.POSTED;
    }

    private Map<String, String> headers() {
        return Map.of("Authorization", "token " + token.reveal(), "Accept", "application/json",
                "Content-Type", "application/json");
    }
}
