package dev.trainyard.cli;

import dev.trainyard.compiler.Compiler;
import picocli.CommandLine.Command;

/** The {@code trainyard} command: a thin CLI over the compiler and GitOps libraries. */
@Command(
    name = "trainyard",
    version = "trainyard " + Compiler.VERSION,
    description = {"Compile train.yaml into JobSet + Kueue manifests, and submit them to a GitOps repository.", ""},
    mixinStandardHelpOptions = true,
    subcommands = {CompileCommand.class, ValidateCommand.class, SubmitCommand.class, PruneCommand.class, PreviewCommand.class, RuntimesCommand.class, SchemaCommand.class, InitCommand.class, WarmupCommand.class},
    footer = {"", "Start with: trainyard init && trainyard compile train.yaml"})
final class TrainyardCommand {}
