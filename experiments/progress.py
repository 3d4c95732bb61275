"""A plain progress bar on stderr for runs longer than a couple of seconds."""
from __future__ import annotations

import sys

SHOW_AFTER = 2.0  # seconds: shorter runs print no bar


class ProgressBar:
    def __init__(self, label="games", stream=None, width=30, show_after=SHOW_AFTER):
        self.label, self.stream, self.width, self.show_after = label, stream or sys.stderr, width, show_after
        self.shown = False

    def __call__(self, done, total, elapsed):
        # shown only for runs that look long once there is a rate to go by (the first chunks are tiny)
        if not self.shown and (done >= total or elapsed < self.show_after / 4
                               or elapsed * total / max(done, 1) < self.show_after):
            return
        self.shown = True
        frac = done / total
        bar = "#" * int(frac * self.width)
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        self.stream.write(f"\r[{bar:<{self.width}}] {frac:6.1%} {done:,}/{total:,} {self.label} "
                          f"{elapsed:5.1f}s elapsed, {eta:5.1f}s left")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
