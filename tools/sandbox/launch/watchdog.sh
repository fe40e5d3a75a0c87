#!/usr/bin/env bash
# shellcheck shell=bash
# The watchdog of a command run the spawn-per-command way (tools/sandbox/launch/cold-command.ts), in bash.
# Arguments: the harness's pid, then the command's argv, which it execs in place.
#
# It runs in the command's process group, detached from the command by a double fork (so a command that waits for
# all its children does not wait for it). Once a second it reads the harness's /proc entry: gone, a zombie, or a new
# process under the same pid (another start time) means the harness is dead, and the command, its descendants and
# its group are killed. Without /proc it falls back to `kill -0`.
#
# rein runs it as `bash -c <this file's text> bash <harness pid> <argv...>`.
# shellcheck disable=SC2086 # /proc/<pid>/stat is split into its fields on purpose, and $pids into one pid a word
h=$1; shift
( (
  if read -r s < /proc/$h/stat; then
    s=${s##*) }; set -- $s; t0=${20}
    alive() { local s; read -r s < /proc/$h/stat || return 1; s=${s##*) }; set -- $s; [ "$1" != Z ] && [ "${20}" = "$t0" ]; }
  else
    alive() { kill -0 "$h"; }
  fi
  while alive; do sleep 1 || exit; done
  # The command stopped first, so it cannot start more; then it and every descendant by parent pid (a process
  # that left the group, bwrap's inner half before it has tied itself to its parent), then the group.
  kill -STOP $$
  # A stop lands when the process leaves the kernel: a fork under way finishes first, so wait until it has.
  for _ in 1 2 3 4 5 6 7 8 9 10; do read -r st < /proc/$$/stat || break; r=${st##*) }; [ "${r%% *}" = T ] && break; sleep 0.01; done
  pids=$$; grew=1
  while [ $grew = 1 ]; do grew=0
    for f in /proc/[0-9]*/stat; do
      read -r st < "$f" || continue; p=${f#/proc/}; p=${p%/stat}; r=${st##*) }; set -- $r
      case " $pids " in *" $p "*) continue;; esac
      case " $pids " in *" $2 "*) pids="$pids $p"; grew=1;; esac
    done
  done
  kill -KILL $pids
  kill -KILL 0
) </dev/null >/dev/null 2>&1 & )
exec "$@"
