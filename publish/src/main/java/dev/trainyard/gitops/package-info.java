/**
 * GitOps publishing: {@code submit} writes compiled runs into a GitOps repository in one commit and
 * pushes it (retrying on a concurrent push), {@code prune} removes finished runs the same way, and
 * the cluster roots ({@code clusters/<cluster>/kustomization.yaml}) that Flux and Argo CD point at
 * are kept in step.
 */
package dev.trainyard.gitops;
