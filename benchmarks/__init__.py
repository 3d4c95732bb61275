"""boardsim benchmarks: throughput, compile and start-up times, memory, and the regression check.

Run with `boardsim bench` (see docs/benchmarks.md). The committed baseline is benchmarks/baseline.json."""
