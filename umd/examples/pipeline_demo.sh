#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The scenario of docs/ownership.md, in the guest of `make run`: the guest's
# init started vdla-pipelined, which owns the pipeline "camera"; application
# 1 takes results of its output channel; application 2 duplicates its
# inference channel and changes an attribute; application 1 exits and
# nothing changes for application 2 or the daemon; application 2 is killed
# and the driver runs the exit action, which the daemon completes.
set -e

step() { echo; echo "== $*"; }

step "the daemon's pipeline"
vdla-pipelinectl status

step "application 1 takes results of the output channel"
vdla-pipelinectl watch 12 &
app1=$!
sleep 0.3

step "application 2 duplicates the inference channel and sets scale=5"
vdla-pipelinectl hold inference scale=5 &
app2=$!
sleep 0.5
vdla-pipelinectl status

step "application 1 exits: nothing changes for application 2 or the daemon"
wait $app1
vdla-pipelinectl status

step "application 2 is killed: the driver runs the exit action"
kill -9 $app2
wait $app2 || true
sleep 0.5
vdla-pipelinectl status

step "a new application finds the pipeline as the daemon built it"
vdla-pipelinectl watch 1
