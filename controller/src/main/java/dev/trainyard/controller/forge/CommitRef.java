package dev.trainyard.controller.forge;

/**
 * A commit on a forge: the project path as the forge names it ({@code owner/repo} on GitHub and
 * Gitea, {@code group/subgroup/project} on GitLab) and the full 40-hex commit SHA.
 */
public record CommitRef(String project, String sha) {}
