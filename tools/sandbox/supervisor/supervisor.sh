#!/usr/bin/env bash
# shellcheck shell=bash
# The supervisor that runs inside a run's sandbox, in bash: one process per
# run, so a command costs no new sandbox: a fork of this small bash (the
# command's reporter) and an exec of `bash -c`.
#
# Arguments: a random token (tags every process it starts, through the
# `REIN_JOB=<token>-<id>` variable), the kill grace in ms, the
# scope: `ns` when it runs in its own PID namespace (bubblewrap), `host`
# when it does not, the memory each process may allocate in KiB and the processes the
# sandbox may hold (0: no limit).
#
# Requests arrive on stdin as NUL-terminated fields:
#   run  <id> <nonce> <command>   a command whose output goes to stdout, then `\0\0REIN-END-<nonce>\0\0`
#   job  <id> <log> <command>     a background job whose output is appended to <log>
#   stop <pgid>                   SIGTERM the group, SIGKILL it after the grace
#   quit                          exit now (the harness has stopped the jobs and cleans up what is left)
# Reports go to fd 3, one line each: `R <pid>` (ready), `S <id> <pgid>`
# (started), `E <id> <status>` (a command ended), `X <id> <status>` (a job ended), `P <text>` (a
# request it could not understand).
# The status is the exit code, or 128 + the signal number.
#
# Each command is the leader of its own process group (job control in the
# reporter subshell that starts its shell and reports on it). When its leader exits, the rest of its group is
# stopped, then everything it left outside the group: processes carrying
# its tag, and (in the namespace) untagged orphans that no live reporter
# owns. Its output end marker is written only after that, so nothing the
# command started can write after it.
#
# stdin reaching EOF without a `quit` means the harness has gone, however
# it went (SIGKILL included): in the namespace the supervisor exits and
# bubblewrap's init, and with it every process in the sandbox, follows; on
# the host it first kills every process carrying its token.
#
# rein runs it as `bash --norc -c <this file's text> rein-supervisor <token> <grace ms> <scope> <KiB> <processes>`:
# the text is read by the harness and passed in, so the file need not be visible inside the sandbox. Then the most a job's
# log may hold and the line that starts a cut log.
token=$1 grace_ms=$2 scope=$3 memory_kib=${4:-0} max_processes=${5:-0} log_max_bytes=${6:-0} log_cut_note=${7:-}

# Limits for everything started from here, soft and hard (without capabilities nothing can raise them again).
# RLIMIT_DATA counts what a process allocates (heap, private writable mappings), not address space it only reserves,
# so runtimes that reserve large ranges (V8, the JVM, Go) start as usual. RLIMIT_NPROC is counted per user namespace,
# so in the sandbox it counts the sandbox's own processes and threads; on the host it would count all of the
# user's, and is not set there. The kernel never applies it to root: a pids cgroup (the harness's) holds root.
(( memory_kib > 0 )) && ulimit -d "$memory_kib"
[[ $scope == ns ]] && (( max_processes > 0 )) && ulimit -u "$max_processes"

# Descriptors the harness was started with beyond its stdio (a terminal multiplexer's, an IDE's, a CI runner's pipe)
# would be inherited by every command: only stdin, stdout, stderr and the report pipe (fd 3) are kept.
for fd_path in "/proc/$$/fd/"*; do
  fd_number=${fd_path##*/}
  (( fd_number > 3 )) && exec {fd_number}>&- 2>/dev/null
done
unset fd_path fd_number

field() { IFS= read -r -d '' "$1"; }

# Sleeps $1 seconds without a fork: a read that times out on a pipe held open read-write (so it never sees EOF) and
# never written. A sandbox at its process limit (a fork bomb) has no process left for sleep(1), and a bash whose fork
# fails exits: the supervisor, and a reporter cleaning up after the bomb, must wait without one. No command inherits it.
exec {pause_fd}<> <(:)
pause() { read -r -t "$1" -u "$pause_fd" _ 2>/dev/null; }

# Process $1's state, parent, group and session, from /proc/<pid>/stat ("pid (comm) state ppid pgrp session ...").
proc_stat() {
  local line
  read -r line 2>/dev/null < "/proc/$1/stat" || return 1
  line=${line##*) }
  st_state=${line%% *}; line=${line#* }
  st_ppid=${line%% *}; line=${line#* }
  st_pgrp=${line%% *}; line=${line#* }
  st_session=${line%% *}
}

# Whether process $1 still runs: neither gone nor a zombie (nor dead, on its way to being one).
running() { proc_stat "$1" && [[ $st_state != Z && $st_state != X ]]; }

# Whether process group $1 has a member that is not a zombie. In the namespace bubblewrap's init reaps orphans at
# once; on the host they may linger as zombies, so the members' states are read.
group_alive() {
  local pg=$1 d
  kill -0 -- "-$pg" 2>/dev/null || return 1
  [[ $scope == ns ]] && return 0
  for d in /proc/[0-9]*; do
    proc_stat "${d#/proc/}" || continue
    [[ $st_pgrp == "$pg" && $st_state != Z && $st_state != X ]] && return 0
  done
  return 1
}

# Microseconds on a clock that only goes forward within one call of stop_group (bash 5's EPOCHREALTIME; SECONDS before it).
now_us() { local t=${EPOCHREALTIME:-$SECONDS.000000}; now=$(( 10#${t/[.,]/} )); }

stop_group() {
  local pg=$1 deadline
  kill -TERM -- "-$pg" 2>/dev/null || return 0
  kill -CONT -- "-$pg" 2>/dev/null
  now_us; deadline=$(( now + grace_ms * 1000 ))
  while group_alive "$pg"; do
    now_us
    (( now >= deadline )) && break
    pause 0.05
  done
  kill -KILL -- "-$pg" 2>/dev/null
  local tries
  for ((tries = 0; tries < 100; tries++)); do group_alive "$pg" || break; pause 0.01; done
  return 0
}

# The tag in process $1's environment, or empty; fails when the environment is unreadable or empty, as it is for a
# moment while a process execs (and for good after "env -i").
tag_of() {
  local entry
  tag=
  mapfile -d '' -t environ 2>/dev/null < "/proc/$1/environ" || return 1
  (( ${#environ[@]} > 0 )) || return 1
  for entry in "${environ[@]}"; do
    [[ $entry == REIN_JOB=* ]] && { tag=${entry#REIN_JOB=}; return 0; }
  done
  return 0
}

# Whether untagged process $1 (parent $2) descends from a live reporter, i.e. belongs to something still running.
owned() {
  local p=$2 hops
  for ((hops = 0; hops < 64; hops++)); do
    [[ $p == "$$" ]] && return 0
    [[ $p == 1 || $p == 0 ]] && return 1
    proc_stat "$p" || return 1
    p=$st_ppid
  done
  return 1
}

# Kills what $1 (a tag, or a tag prefix ending in *) left behind, never rein's own (this supervisor; its reporters but
# at the harness's death, the sweep with a prefix):
# every process with a matching tag, and the descendants of those. In the namespace also untagged orphans that no
# live reporter owns (a process that cleared its environment); on the host only orphans are looked at (their parent
# is init or an ancestor of the supervisor: where orphans go), so a command does not cost reading every process's
# environment. $2: only pids from this one up (on the host: the finished command's, as its escapees are newer).
# Victims are stopped first, so none can fork while the rest are found, then killed together.
sweep() {
  local pattern=$1 newer=${2:-0} victims=' ' found unsure round d p retries=0
  for (( round = 0; round < 8; round++ )); do
    found='' unsure=''
    for d in /proc/[0-9]*; do
      p=${d#/proc/}
      (( p < newer )) && continue
      [[ $p == 1 || $p == "$$" || $p == "$BASHPID" || $victims == *" $p "* ]] && continue
      proc_stat "$p" || continue
      [[ $st_state == Z ]] && continue
      # The supervisor's children (reporters) are its own, except in the sweep at the harness's death: a reporter
      # between forking its command and the exec is not yet tagged, and would start it after this sweep. They go too.
      if [[ $st_ppid == "$$" ]]; then
        [[ $pattern == *'*' ]] && kill -STOP "$p" 2>/dev/null && found+="$p "
        continue
      fi
      if [[ $victims != *" $st_ppid "* ]]; then
        [[ $scope == ns || $orphanage == *" $st_ppid "* || $pattern == *'*' ]] || continue
        # A process caught mid-exec (no environment yet) is looked at again in a moment before it is judged untagged:
        # in the namespace always; on the host only in the sweep at the harness's death, which must not miss the
        # command it was starting (after each command, rescanning the host's environment-less processes costs more).
        # A process a live reporter owns is never this sweep's (the next command's shell starting, say): not waited for.
        if ! tag_of "$p" && [[ $scope == ns || $pattern == *'*' ]] && (( retries < 2 )); then
          [[ $pattern != *'*' ]] && owned "$p" "$st_ppid" && continue
          unsure=1; continue
        fi
        # shellcheck disable=SC2053 # the pattern is a glob on purpose ("<token>-c4", "<token>-*")
        if [[ -n $tag ]]; then [[ $tag == $pattern ]] || continue
        # At the harness's death an untagged process of the supervisor's own session is ours: a command's shell between
        # its fork and its exec whose reporter died first (of SIGPIPE, reporting to the dead harness) is orphaned, and
        # only its session still says whose it is.
        elif [[ $pattern == *'*' && -n $own_session && $st_session == "$own_session" ]]; then :
        elif [[ $scope != ns ]] || owned "$p" "$st_ppid"; then continue
        fi
      fi
      kill -STOP "$p" 2>/dev/null && found+="$p "
    done
    if [[ -z $found ]]; then
      [[ -n $unsure ]] || break
      (( retries += 1 ))
      pause 0.01
    fi
    victims+=$found
  done
  [[ $victims == ' ' ]] && return 0
  # At the harness's death the reporters go too, so none is left to stop the rest of its command's group: the groups
  # of the victims go with them (an untagged process left in one, say "env -i nohup …", included); never our own.
  local groups=' ' g
  if [[ $pattern == *'*' ]]; then
    for p in $victims; do
      proc_stat "$p" && [[ $st_pgrp != "$own_group" && $groups != *" $st_pgrp "* ]] && groups+="$st_pgrp "
    done
  fi
  # shellcheck disable=SC2086 # split on purpose: one pid a word
  kill -KILL $victims 2>/dev/null
  for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done
  # SIGKILL is delivered when the process next runs: wait until each is gone (or a zombie), so that when the
  # command is reported ended, nothing it started is still running.
  local tries
  for ((tries = 0; tries < 100; tries++)); do
    found=
    for p in $victims; do running "$p" && found=1 && break; done
    [[ -z $found ]] && break
    pause 0.01
  done
  return 0
}

# The supervisor's own process group, which its reporters share: never one a sweep kills.
proc_stat "$$" && own_group=$st_pgrp
# The supervisor's session, when it leads one (the harness starts it with setsid): every process of it is a reporter's
# or a command's, unless a command left it with setsid (and those carry their tag).
own_session=
proc_stat "$$" && [[ $st_session == "$$" ]] && own_session=$$

# Where orphans of our commands go on the host: init and any ancestor of the supervisor (a subreaper).
orphanage=' 1 '
if [[ $scope != ns ]]; then
  ancestor=$PPID
  for ((hops = 0; hops < 64; hops++)); do
    [[ $ancestor == 0 || $ancestor == 1 ]] && break
    orphanage+="$ancestor "
    proc_stat "$ancestor" || break
    ancestor=$st_ppid
  done
fi

# After a command's leader $1 has exited: the rest of its group, then what it left outside it. On the host only
# processes started after it are looked at (the others cannot be its own), so a command does not cost a scan of them all.
finish() {
  group_alive "$1" && stop_group "$1"
  if [[ $scope == ns ]]; then sweep "$2"; else sweep "$2" "$1"; fi
}

# Whether a fork can be risked: a bash whose fork fails exits, and the supervisor must not. In the namespace, a sandbox
# that holds nearly its limit of processes (a fork bomb in a job, or one a stop is still reaping) is given a moment to
# free some; still full, the caller does without (a command is reported not started). Threads count toward
# the limit but not here: a sandbox full of threads can still take the supervisor down, and the next command gets a
# new sandbox.
room_for_fork() {
  local tries processes
  [[ $scope == ns ]] && (( max_processes > 0 )) || return 0
  for ((tries = 0; tries < 20; tries++)); do
    processes=(/proc/[0-9]*)
    (( ${#processes[@]} + 4 < max_processes )) && return 0
    pause 0.05
  done
  return 1
}

# A command in a bash of its own, forked by its reporter (this subshell), which reports on it.
run_command() {
  local id=$1 nonce=$2 command=$3 tag=$token-$1 pid status
  set -m
  REIN_JOB=$tag bash -c -- "$command" </dev/null 2>&1 3>&- {pause_fd}<&- &
  pid=$!
  set +m
  printf 'S %s %s\n' "$id" "$pid" >&3
  wait "$pid"
  status=$?
  command_ended "$id" "$nonce" "$pid" "$tag" "$status"
}

# After command $1's leader $3 (tag $4) has exited with status $5: clean up, then the end marker (nonce $2) and the report.
command_ended() {
  finish "$3" "$4"
  printf '\0\0REIN-END-%s\0\0' "$2"
  printf 'E %s %s\n' "$1" "$5" >&3
}

# A job's output, from stdin, appended to the log on stdout, which is cut back to the note whenever it would pass
# log_max_bytes: capped as it is written, however fast the job writes. dd copies at most that much, each read written
# at once (head would hold it in stdio's buffer), and stops; one byte more tells a full log from the end of the output.
# LC_ALL=C: read -N counts bytes.
log_writer() {
  local LC_ALL=C byte
  # Room for the note and the byte after it, so a cut log is within the cap too (rein's own check cuts what is not).
  local room=$(( log_max_bytes - ${#log_cut_note} - 2 ))
  (( room > 0 )) || room=1
  while dd status=none bs=64K iflag=count_bytes count="$room"; do
    IFS= read -r -d '' -N 1 byte || return 0
    truncate -s 0 /proc/self/fd/1 2>/dev/null
    printf '%s\n' "$log_cut_note"
    if [[ -n $byte ]]; then printf '%s' "$byte"; else printf '\0'; fi
  done
}

run_job() {
  local id=$1 log=$2 command=$3 pid status writer='' out_fd log_fd
  if (( log_max_bytes > 0 )); then
    # The log is opened before the command starts (which may swap the name at once). The writer is this reporter's
    # child, not in the job's process group, so stopping the job leaves it to write out what is still in the pipe.
    exec {log_fd}>>"$log"
    exec {out_fd}> >(log_writer >&"$log_fd" {log_fd}>&- 3>&- {pause_fd}<&-)
    writer=$!
    exec {log_fd}>&-
  else
    exec {out_fd}>>"$log"
  fi
  set -m
  REIN_JOB=$token-$id bash -c -- "$command" </dev/null >&"$out_fd" 2>&1 3>&- {pause_fd}<&- {out_fd}>&- &
  pid=$!
  set +m
  exec {out_fd}>&-
  printf 'S %s %s\n' "$id" "$pid" >&3
  wait "$pid"
  status=$?
  finish "$pid" "$token-$id"
  # Nothing the job started is left to hold the pipe: the writer reaches its end, and then the log is all there.
  [[ -n $writer ]] && wait "$writer"
  printf 'X %s %s\n' "$id" "$status" >&3
}

printf 'R %s\n' "$$" >&3
op=''
while field op; do
  case $op in
    run)
      field id; field nonce; field command
      if room_for_fork; then
        run_command "$id" "$nonce" "$command" &
      else
        printf 'rein: not started: the sandbox holds its limit of %s processes and threads (permissions.limits.processes); a background job, or what a command left running, may hold them\n' "$max_processes"
        printf '\0\0REIN-END-%s\0\0' "$nonce"
        printf 'E %s 126\n' "$id" >&3
      fi ;;
    job) field id; field log; field command; run_job "$id" "$log" "$command" & ;;
    # SIGTERM at once, without a fork: a group that has taken every process the sandbox may hold (a fork bomb)
    # leaves none for the subshell that waits out the grace; most of it dies of the signal, which frees them.
    # Here, not in a subshell: a group that has taken every process the sandbox may hold (a fork bomb) leaves none for
    # one, and a bash whose fork fails exits. Requests wait meanwhile: at most the grace and a second, for a group
    # that ignores SIGTERM.
    stop) field pg; stop_group "$pg" ;;
    quit) exit 0 ;;
    *) printf 'P unknown request\n' >&3 ;;
  esac
done
# EOF without a quit: the harness died. In the namespace, exiting ends everything; on the host, everything tagged goes.
[[ $scope == ns ]] || sweep "$token-*" "$$"
exit 0
