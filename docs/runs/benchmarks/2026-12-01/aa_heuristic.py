"""The A/A runs of the Bethel Woods heuristic's rows in aa_heuristic.jsonl (2026-12-01): the speed check's
own measure (benchmarks/ab.py) with base = HEAD on a clean tree, first rounds only, at the rows' 600 games
per thread and at 2,000. Run from the repository root:

    .venv/bin/python docs/runs/benchmarks/2026-12-01/aa_heuristic.py 5 aa_heuristic.jsonl

The runs in aa_heuristic.jsonl were made with the check's code of 3f032a3, where the line below read
`ab.CONFIRM = False` (the same effect: first rounds only).
"""
import json
import sys
import time

from benchmarks import ab

ab.ROUNDS = 1  # first rounds only: no confirmation
with open(sys.argv[2], "a") as out:
    for k in range(int(sys.argv[1])):
        for games in (600, 2000):
            rows = ab.rows(True, cases=[("bethel_woods", "heuristic", games)])
            t0 = time.time()
            commit, res = ab.compare("HEAD", rows_=rows)
            out.write(json.dumps({"games_per_thread": games, "seconds": time.time() - t0,
                                  "rows": [r.as_dict() for r in res]}) + "\n")
            out.flush()
