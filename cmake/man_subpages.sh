#!/bin/sh
# SPDX-License-Identifier: MIT
# man_subpages.sh PAGE OUTDIR: writes OUTDIR/mfstat-CMD.1 for every subcommand, so that
# `man mfstat-report` (and `man -l` on the installed file) works.  Each page is cut out of
# PAGE (man/mfstat.1), not written by hand: the command's SYNOPSIS lines, its entry under
# COMMANDS as the description, its section under OPTIONS, and a pointer to mfstat(1) for
# input, output, exit status and examples.  A `.so man1/mfstat.1` page would be smaller, but
# man-db resolves .so relative to the current directory with `man -l`, so it would not render
# there.  Fails when a part is missing (the page's structure changed), so the build says so.
set -eu
page=$1
out=$2
mkdir -p "$out"
th=$(grep -m1 '^\.TH ' "$page")
for cmd in report diff export counters metrics machines smf stat serve measure; do
  tag=$cmd
  case $cmd in
    report) desc='CPU-MF metrics from counter CSV, SMF dumps, perf stat or lshwc output' ;;
    diff) desc='compare the metrics of two periods, sets of files or machines' ;;
    export) desc='write counter files as summed canonical counter CSV, for report' ;;
    counters) desc='list the CPU-MF counters of a machine family, or explain one' ;;
    metrics) desc='list the metrics of a machine family, or show one with its formula' ;;
    machines) desc='list the machine families, or show one' ;;
    smf) desc='list the records of SMF dumps'; tag='smf list' ;;
    stat) desc='count the CPU-MF counters of a command or of the system (Linux on IBM Z)' ;;
    serve) desc='serve every CPU'"'"'s CPU-MF counters to Prometheus over HTTP (Linux on IBM Z)' ;;
    measure) desc='sample a program per thread, module, function, source line and cache line' ;;
  esac
  upper=$(printf '%s' "mfstat-$cmd" | tr '[:lower:]' '[:upper:]')
  # SYNOPSIS: the entries (separated by .br) whose first line is ".B mfstat TAG...".
  synopsis=$(awk -v cmd="$cmd" '
    function flush() {
      if (entry != "" && keep) { if (printed) print ".br"; printf "%s", entry; printed = 1 }
      entry = ""; keep = 0
    }
    /^\.SH / { if (in_syn) flush(); in_syn = ($0 == ".SH SYNOPSIS"); next }
    !in_syn { next }
    /^\.br$/ { flush(); next }
    { if (entry == "") keep = ($0 == ".B mfstat " cmd || index($0, ".B mfstat " cmd " ") == 1)
      entry = entry $0 "\n" }
    END { if (in_syn) flush() }' "$page")
  # DESCRIPTION: the .TP entry of COMMANDS whose tag is ".B TAG", up to the next .TP or .SH.
  description=$(awk -v tag="$tag" '
    /^\.SH / { in_cmds = ($0 == ".SH COMMANDS"); keep = 0; next }
    !in_cmds { next }
    /^\.TP$/ { keep = 0; tp = 1; next }
    tp { tp = 0; if ($0 == ".B " tag) keep = 1; next }
    keep { print }' "$page")
  # OPTIONS: the .SS of OPTIONS whose title names TAG ("counters, metrics" for both).
  options=$(awk -v tag="$tag" '
    /^\.SH / { in_opts = ($0 == ".SH OPTIONS"); keep = 0; next }
    !in_opts { next }
    /^\.SS / { t = substr($0, 5); n = split(t, names, ", "); keep = 0
               for (i = 1; i <= n; i++) if (names[i] == tag) keep = 1
               next }
    keep { print }' "$page")
  for part in synopsis description options; do
    eval "v=\$$part"
    [ -n "$v" ] || { echo "man_subpages.sh: no $part for $tag in $page" >&2; exit 1; }
  done
  {
    printf '.\\" Generated from man/mfstat.1 by cmake/man_subpages.sh: edit that page, not this one.\n'
    printf '%s\n' "$th" | sed "s/^\\.TH MFSTAT /.TH $upper /"
    printf '.nh\n.SH NAME\nmfstat\\-%s \\- %s\n.SH SYNOPSIS\n' "$cmd" "$desc"
    printf '%s\n' "$synopsis"
    printf '.SH DESCRIPTION\n%s\n' "$description"
    printf '.PP\nThis page is the %s part of\n.BR mfstat (1),\n' "$tag"
    printf 'which also describes the input formats, the output, the exit status and examples.\n'
    printf '.SH OPTIONS\n%s\n' "$options"
    printf '.SH SEE ALSO\n.BR mfstat (1)\n'
  } > "$out/mfstat-$cmd.1.tmp"
  mv "$out/mfstat-$cmd.1.tmp" "$out/mfstat-$cmd.1"
done
