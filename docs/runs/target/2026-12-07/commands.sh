#!/bin/bash
# The measured commands of docs/target.md (2026-12-07): ability_off, edge:CHARACTER, several player
# counts, the exchange-tile alternatives. Run from the repository root with boardsim on the PATH
# (e.g. PATH=.venv/bin:$PATH bash docs/runs/target/2026-12-07/commands.sh)
set -e
run() { echo "\$ boardsim $*"; /usr/bin/time -f "(%e s wall)" boardsim "$@" 2>&1; echo; }
run target bethel-woods --knob ability_off --range all --outcome edge:Violet --at-most 0.05 --players 3
run target bethel-woods --knob knowledge_limit --range 6-9 --knob critical_knowledge_limit --range 4-7 \
    --knob malfunctions_per_turn --range 3-4 --band 30-40 --players 2,3,4
run target bethel-woods --knob knowledge_limit --range 6-9 --knob critical_knowledge_limit --range 4-7 \
    --knob malfunctions_per_turn --range 3-4 --band 30-45 --players 2,3,4
run target benevolent --knob exchange_tiles --range all --target 0.5 --players 2
