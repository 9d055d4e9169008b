# trainyard-server.sh: the resident server's part of the launchers, sourced by bin/trainyard and by a checkout's
# ./trainyard (docs/developer-guide.md, "The resident server"). compile, validate, preview, check-secrets and submit go to
# a warm JVM ("trainyard server") when one answers on the socket of this build, this Java and this environment;
# the client JVM (dev.trainyard.cli.ServerClient) loads only JDK classes.
#
#   served ARGS...   runs the call through the server and exits with its code when one answers; else returns
#                    (the caller then runs the call in its own JVM) after starting a server for the next calls.
#
# The caller sets: server_java (java binary), server_client (the CLI jar), server_cp (the full class path),
# server_build (text naming this build: jar listings) and the array server_opts (JVM options of the server).
# Env: TRAINYARD_SERVER (auto: on unless CI is set to anything but "", "false" or "0"; on; off),
# TRAINYARD_SERVER_DIR (default $XDG_CACHE_HOME/trainyard/server, else ~/.cache/trainyard/server).
# A server is started on the second unserved call with the same key (a one-off environment, e.g. a loop over
# RUN_ID=$i, gets none), and not while 3 servers already listen in the folder.

served() {
  local mode="${TRAINYARD_SERVER:-auto}" dir key sock code=0 tool live
  case "$mode" in
    auto) case "${CI:-}" in ""|false|0) mode=on ;; *) mode=off ;; esac ;;
    on|off) ;;
    *)
      echo "trainyard: warning: TRAINYARD_SERVER=$mode is not on, off or auto; running without the resident server" >&2
      mode=off ;;
  esac
  [ "$mode" = on ] || return 0
  case "${1:-}" in compile|validate|preview|check-secrets|submit) ;; *) return 0 ;; esac
  for tool in cksum cut env grep sort mkdir nohup; do
    command -v "$tool" >/dev/null 2>&1 || return 0
  done
  dir="${TRAINYARD_SERVER_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/trainyard/server}"
  case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
  # The build, the Java, the umask (the server's files are made with its own, inherited from the call that
  # started it) and the environment but for what changes in every shell.
  key="$( { echo "$server_build"; echo "$server_java"; umask; env | grep -Ev '^(PWD|OLDPWD|SHLVL|_)=' | LC_ALL=C sort; } | cksum | cut -d' ' -f1)"
  sock="$dir/$key.sock"
  if [ -S "$sock" ]; then
    # The client runs in the background so that a signal to this shell alone (kill PID, a timeout
    # --foreground, Ctrl-C) reaches it: this shell's traps pass it on as SIGTERM (a background job of a
    # non-interactive shell ignores SIGINT), the client stops a served submit before its push, and this
    # shell then ends as the signal would have ended it (130, 143, 129). A client whose shell was killed
    # (SIGKILL) notices its parent gone and stops the same way.
    local client stopped=""
    "$server_java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xshare:auto -cp "$server_client" \
      dev.trainyard.cli.ServerClient "$sock" "$@" &
    client=$!
    trap 'stopped=130; kill -TERM "$client" 2>/dev/null' INT
    trap 'stopped=143; kill -TERM "$client" 2>/dev/null' TERM
    trap 'stopped=129; kill -TERM "$client" 2>/dev/null' HUP
    while :; do
      code=0
      wait "$client" || code=$?
      kill -0 "$client" 2>/dev/null || break # else a trapped signal ended the wait, not the client
    done
    trap - INT TERM HUP
    [ -z "$stopped" ] || exit "$stopped"
    [ "$code" = 75 ] || exit "$code"
    # Declined (or a busy server): one still listens here, so none is started below.
    [ ! -S "$sock" ] || return 0
  fi
  # Not served (no server, a dead one's socket, or a declined call): start one for this key on its second call,
  # unless one failed for it ($sock.failed says why) or 3 already listen here. A server started while another
  # holds the key's lock exits at once.
  [ ! -f "$sock.failed" ] || return 0
  (umask 077 && mkdir -p "$dir") 2>/dev/null || return 0
  if [ ! -f "$dir/$key.seen" ]; then
    : > "$dir/$key.seen" 2>/dev/null || true
    return 0
  fi
  live=0
  for tool in "$dir"/*.sock; do
    [ -S "$tool" ] && live=$((live + 1))
  done
  [ "$live" -lt 3 ] || return 0
  local starter=()
  command -v setsid >/dev/null 2>&1 && starter=(setsid)
  # From /, so the server holds no caller's folder; its log is appended to (a second server for the same socket
  # writes one line and exits).
  # The redirections are the subshell's, so no process holding the caller's stdout or stderr outlives this call
  # (a pipe or $(...) would wait for the server otherwise). A log that is a symbolic link is not written through.
  [ ! -L "$dir/$key.log" ] || return 0
  (cd / && exec nohup ${starter[@]+"${starter[@]}"} "$server_java" "${server_opts[@]}" -cp "$server_cp" \
    dev.trainyard.cli.Main server --socket "$sock") </dev/null >>"$dir/$key.log" 2>&1 &
  return 0
}
