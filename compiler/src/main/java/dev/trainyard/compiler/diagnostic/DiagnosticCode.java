package dev.trainyard.compiler.diagnostic;

/**
 * Stable diagnostic codes, grouped by the pipeline stage that reports them.
 *
 * <p>{@code E1xx} load, {@code E2xx} schema, {@code E3xx} resolve, {@code E4xx} policy, {@code
 * E5xx} render, {@code E6xx} check, {@code E7xx} emit and write, {@code E8xx} publish to the GitOps
 * repo (submit, prune). Codes never change meaning; retired codes are not reused. Warnings use the
 * same numbering with a {@code W} prefix.
 */
public enum DiagnosticCode {
  // load
  YAML_SYNTAX("E101"),
  TAB_INDENTATION("E102"),
  DUPLICATE_KEY("E103"),
  ANCHOR_OR_ALIAS("E104"),
  FILE_TOO_LARGE("E105"),
  EMPTY_FILE("E106"),
  NOT_A_MAPPING("E107"),
  FILE_UNREADABLE("E108"),
  NOT_UTF8("E109"),
  MULTIPLE_DOCUMENTS("E110"),
  LINE_TOO_LONG("E111"),
  // schema
  UNKNOWN_FIELD("E201"),
  WRONG_TYPE("E202"),
  MISSING_FIELD("E203"),
  OUT_OF_RANGE("E204"),
  INVALID_VALUE("E205"),
  // resolve
  UNKNOWN_RUNTIME("E301"),
  UNKNOWN_RUNTIME_VERSION("E302"),
  INVALID_RUNTIME("E303"),
  INVALID_PLATFORM("E304"),
  SOURCE_NOT_COMMITTED("E305"),
  SOURCE_NO_REMOTE("E306"),
  INVALID_QUANTITY("E307"),
  INVALID_DURATION("E308"),
  WORKDIR_OUTSIDE_REPO("E309"),
  UNKNOWN_TARGET("E310"),
  RUNTIME_NOT_ALLOWED("E313"),
  UNKNOWN_COMMIT("E314"),
  COMMIT_UNCHECKED("W315"),
  COMMIT_NOT_PUSHED("W316"),
  NO_CHECKPOINT_STORAGE("E317"),
  /** {@code --fresh} for a train.yaml without {@code checkpoint:}: it does nothing. */
  FRESH_WITHOUT_CHECKPOINT("W318"),
  // policy
  INVALID_NAME("E401"),
  NAME_TOO_LONG("E402"),
  RESERVED_ENV("E403"),
  QUEUE_NOT_ALLOWED("E404"),
  UNCOVERED_RESOURCE("E405"),
  OVER_QUOTA("E414"),
  OVER_QUOTA_BORROWING("W415"),
  UNKNOWN_GPU_TYPE("E406"),
  SECRETS_POLICY("E407"),
  TOO_MANY_PROCESSES("E408"),
  RUN_CONTRADICTS_TOPOLOGY("E409"),
  PLAIN_SECRET_IN_GIT("W410"),
  RUN_LINT_WARNING("W411"),
  IMAGE_NOT_PINNED("W412"),
  RESERVED_PATH("E413"),
  CHECKPOINT_NOT_SHARED("E435"),
  CHECKPOINT_NOT_RESUMED("W437"),
  CHECKPOINT_LOST("W438"),
  SHM_EXCEEDS_MEMORY("W414"),
  TOO_MANY_POD_SETS("E416"),
  UNKNOWN_PRIORITY("E417"),
  PRIORITY_NOT_CHECKED("W418"),
  SYSTEM_PATH("E419"),
  /**
   * {@code tune run} on several nodes without {@code --rdzv_endpoint}: torchtune forces {@code
   * --standalone}, each node waits alone.
   */
  RUN_HANGS_AT_RENDEZVOUS("E423"),
  /**
   * A launcher flag that must agree on every node holds a value that differs per pod ({@code
   * $RANDOM}, {@code $HOSTNAME}).
   */
  POD_VARIABLE_IN_FLAG("E424"),
  /**
   * A launcher flag other than a topology flag (E430) refers to a variable no pod sets: it expands
   * to nothing.
   */
  UNDEFINED_VARIABLE_IN_FLAG("W425"),
  /** A multi-node torch run that starts no launcher: every node trains alone. */
  NODES_TRAIN_ALONE("W426"),
  /**
   * A launcher ({@code deepspeed}, {@code torchrun}, {@code horovodrun}, {@code mlx.launch}) inside
   * the mpirun of an MPI runtime.
   */
  NESTED_LAUNCHER("E427"),
  /**
   * The {@code mpi} field: on a runtime without Open MPI, or an MCA parameter Trainyard sets
   * itself.
   */
  INVALID_MPI_SETTINGS("E428"),
  /** One environment name set twice ({@code env} and {@code secrets}, or two {@code secrets}). */
  ENV_SET_TWICE("E429"),
  /**
   * A topology flag (a node or process count such as {@code --nnodes} or {@code --num_processes},
   * or a node rank) refers to a variable no pod sets: it expands to nothing and the run cannot form
   * its group.
   */
  UNDEFINED_VARIABLE_IN_TOPOLOGY("E430"),
  /**
   * {@code run} starts {@code python} or {@code pip} on a runtime whose image records no Python
   * (the {@code mpi} runtime's mpioperator/openmpi): the command is not found on any node. A
   * warning, since a platform runtime may have left {@code python:} out of its runtime.yaml.
   */
  NO_PYTHON_IN_IMAGE("W431"),
  /**
   * A plain {@code env} value looks like a credential (a token shape from gitleaks' rule set, or a
   * credential name with a literal high-entropy value): it would be committed in plain text to the
   * GitOps repo and shown in pull-request previews (where it is masked).
   */
  CREDENTIAL_IN_ENV("W432"),
  /**
   * A requirement that {@code setup} installs (requirements.txt, pyproject.toml's dependencies, a
   * {@code pip install} argument) limits a package the runtime's image has to versions the image's
   * does not meet: pip replaces the image's package on every node and the run trains with another.
   */
  REQUIREMENT_REPLACES_RUNTIME_PACKAGE("W433"),
  /**
   * The repository declares a Python ({@code pyproject.toml} {@code requires-python}, {@code
   * .python-version}) that the runtime's image does not have: code written for a newer Python fails
   * on every rank, and {@code pip install .} refuses the project.
   */
  PYTHON_VERSION_MISMATCH("W434"),
  /**
   * A {@code pip install} argument of {@code setup} holds an unquoted {@code <} or {@code >}: bash
   * reads a redirection, so the install fails ({@code <}) or drops the version limit ({@code >}).
   */
  UNQUOTED_REQUIREMENT("E439"),
  /**
   * {@code pip install -r FILE} in {@code setup} names a file the working directory does not have
   * at the commit: pip stops on every node.
   */
  REQUIREMENTS_FILE_MISSING("W440"),
  /**
   * {@code run}, {@code setup} or a script {@code run} starts is not valid bash: a quote, {@code
   * $(} or {@code ${} never closed, an {@code if}/{@code for}/{@code case}/{@code {} never closed, or
   * a {@code fi}/{@code done}/{@code esac}/{@code }} that closes nothing. bash stops there with exit
   * 2 on every node.
   */
  SHELL_SYNTAX("E450"),
  /**
   * {@code run} starts a script ({@code bash go.sh}, {@code ./go.sh}) the working directory does
   * not have at the commit: the shell stops with "No such file or directory" on every node.
   */
  WRAPPER_SCRIPT_MISSING("W451"),
  /**
   * {@code run} calls {@code module} or {@code ml} (Environment Modules, Lmod): HPC clusters define
   * them, no image has them; bash reports "module: command not found" (exit 127).
   */
  HPC_MODULES("W452"),
  /**
   * {@code run} or {@code setup} is longer than one string a Linux process may be given
   * (MAX_ARG_STRLEN, 131,072 bytes): every container would fail to start with "Argument list too
   * long".
   */
  RUN_TOO_LONG("E453"),
  /**
   * {@code checkpoint.recoverOnExitCodes} lists 80, the exit of Trainyard's GPU start-up check (a
   * broken node, reported as a platform error).
   */
  RECOVER_CODE_RESERVED("E445"),
  /**
   * {@code checkpoint.recoverOnExitCodes} lists an exit a restart does not cure: 137 (SIGKILL, out
   * of memory), 143 (SIGTERM, already a restart), 126/127 (bash: not executable, not found).
   */
  RECOVER_CODE_NOT_CURED("W446"),
  /** {@code checkpoint.recoverOnExitCodes} with {@code retries: 0}: no restart is left. */
  RECOVER_WITHOUT_RETRIES("W447"),
  CREDENTIALS_IN_URL("W311"),
  SSH_URL_REWRITTEN("W312"),
  // render
  TEMPLATE_ERROR("E501"),
  // check
  OUTPUT_INVALID("E601"),
  CLUSTER_REJECTED("E602"),
  // emit and write
  OUTPUT_WRITE("E701"),
  EXISTING_SECRET_INVALID("E702"),
  // publish (submit, prune)
  UNKNOWN_RUN("E801"),
  RUN_WITHOUT_CREATION_TIME("W802"),
  GITOPS_ROOT_UNREADABLE("E803"),
  GITOPS_FILE_IN_THE_WAY("E804"),
  PLATFORM_OVERRIDE_REFUSED("E805"),
  EMBEDDED_PLATFORM("W806"),
  ALREADY_PRUNED("W807"),
  UNKNOWN_CLUSTER("E808"),
  PRIVATE_KEY_IN_TREE("E809"),
  /**
   * {@code submit --changed-since SHA}: the SHA is not in the source repo (force push, shallow
   * clone).
   */
  BASE_COMMIT_MISSING("W810"),
  /**
   * {@code platform render --check}: a queue object committed under {@code clusters/} is not what
   * platform.yaml gives.
   */
  QUEUE_OBJECTS_STALE("E811"),
  /**
   * {@code platform render}: the GitOps checkout has no regular-file {@code platform.yaml}, so
   * there is no platform to render from (the embedded default would replace every queue).
   */
  PLATFORM_FILE_MISSING("E812"),
  /**
   * {@code platform render}: a file in a queue folder ({@code _cluster/}, {@code _queues/}) that
   * Trainyard did not write was removed, because the render writes those folders whole.
   */
  HAND_WRITTEN_QUEUE_FILE("W813"),
  /**
   * {@code submit} (and its preview): the GitOps repo holds a file Trainyard did not write in a
   * queue folder ({@code _cluster/}, {@code _queues/}) the submit would rewrite whole; the submit
   * refuses rather than delete the platform team's object inside an ML engineer's commit.
   */
  HAND_WRITTEN_FILE_IN_THE_WAY("E814"),
  /**
   * {@code compile --out}: a folder it wrote (a run's, a queue folder) is not in the resources of
   * the kustomization.yaml beside it, so a sync of that root does not apply it; {@code submit}
   * keeps those lists, {@code compile --out} does not edit them.
   */
  FOLDER_NOT_LISTED("W815");

  private final String id;

  DiagnosticCode(String id) {
    this.id = id;
  }

  /** The printed code, e.g. {@code E402}. */
  public String id() {
    return id;
  }
}
